package digitalocean_test

import (
	"testing"

	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

func TestADefaultPoolGoneRefusalIsReadBackFromTheEnginesWordsAndNothingElseIs(t *testing.T) {
	said := (&dofacts.DefaultPoolGoneError{Cluster: "platform-prod"}).Error()
	for _, tt := range []struct {
		name, text, cluster string
	}{
		{"the refusal quoted by the engine", "error: running program: " + said + "\n  exit status 1", "platform-prod"},
		{"the refusal alone", said, "platform-prod"},
		{"another refusal of the field", "spec.defaultNodePool: size s-2vcpu-4gb is not offered", ""},
		{"nothing", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := dofacts.ReadDefaultPoolGone(tt.text)
			switch {
			case tt.cluster == "" && got != nil:
				t.Errorf("read %+v from %q, want none", got, tt.text)
			case tt.cluster != "" && (got == nil || got.Cluster != tt.cluster):
				t.Errorf("read %+v from %q, want cluster %s", got, tt.text, tt.cluster)
			}
		})
	}
}
