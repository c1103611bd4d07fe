package reconcile

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
)

func TestARotationsStatusSaysItsPhaseAndPools(t *testing.T) {
	tests := []struct {
		name  string
		state rotation.State
		want  string
		phase string
	}{
		{"a rotation just started", rotation.State{OldID: "old"}, "rotating pool workers: started, the surge pool is made next (old pool old, surge pool not made yet)", "started"},
		{"a rotation past its drain", rotation.State{Phase: rotation.Drained, OldID: "old", SurgeID: "surge"}, "rotating pool workers: the old pool is drained (old pool old, surge pool surge)", "drained"},
		{"a second hop", rotation.State{Phase: rotation.SurgeReady, Hop: 1, OldID: "surge", SurgeID: "back"}, "rotating pool workers, second hop (back to its name): the surge pool's nodes are Ready (pool surge, pool back)", "surge-ready"},
		{"a roll-back", rotation.State{Phase: rotation.RollingBack, OldID: "old", SurgeID: "surge"}, "rolling back, the surge pool goes", "rolling-back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := rotating("workers", tt.state)
			progressing, _ := st.Condition("Progressing")
			ready, _ := st.Condition("Ready")
			if progressing.Status != "True" || progressing.Reason != "Rotating" || ready.Status != "Unknown" {
				t.Errorf("conditions %v, want Progressing=True Rotating and Ready=Unknown", st.Conditions)
			}
			if !strings.Contains(progressing.Message, tt.want) {
				t.Errorf("message %q, want %q", progressing.Message, tt.want)
			}
			if r, _ := st.Metadata["rotation"].(map[string]any); r["phase"] != tt.phase || r["hop"] != tt.state.Hop+1 || r["pool"] != "workers" {
				t.Errorf("metadata %v, want phase %s", st.Metadata, tt.phase)
			}
		})
	}
}
