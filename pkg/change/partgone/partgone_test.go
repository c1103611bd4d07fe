package partgone_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/partgone"
)

func TestAPartGoneRefusalIsReadBackFromTheEnginesWordsAndNothingElseIs(t *testing.T) {
	gone := partgone.Error{Cloud: "DigitalOcean", Field: "spec.defaultNodePool", Part: "pool", Cluster: "platform-prod",
		Mark: "terraform:default-node-pool"}
	said := gone.Error()
	for _, tt := range []struct {
		name, text string
		want       *partgone.Error
	}{
		{"the refusal quoted by the engine", "error: running program: " + said + "\n  exit status 1", &gone},
		{"the refusal alone", said, &gone},
		{"another refusal of the field", "spec.defaultNodePool: size s-2vcpu-4gb is not offered", nil},
		{"nothing", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := partgone.Read(tt.text)
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("read %+v from %q, want none", got, tt.text)
			case tt.want != nil && (got == nil || *got != *tt.want):
				t.Errorf("read %+v from %q, want %+v", got, tt.text, tt.want)
			}
		})
	}
}
