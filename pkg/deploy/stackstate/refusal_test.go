package stackstate_test

import (
	"errors"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// The engine's words are read once, where the backend reads them: the refusal of a version the
// cloud upgraded the cluster past is a refused change that carries the module's typed error, so
// that drift asks errors.As for it and reads no words again.
func TestAModulesRefusalReadFromTheEnginesWordsCarriesItsTypedError(t *testing.T) {
	past := &kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31", Live: "1.32.2-do.0",
		Cloud: "DigitalOcean", Want: "1.32"}
	tests := []struct {
		name string
		text string
		want *kubeversion.UpgradedPastError // nil: no such refusal
	}{
		{"the module's words quoted by the engine", "error: preview failed: " + past.Error() + "\n",
			&kubeversion.UpgradedPastError{Field: past.Field, Manifest: past.Manifest, Live: past.Live}},
		{"any other failure", "error: 429 Too Many Requests", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := stackstate.ModuleRefusal(tt.text)
			var got *kubeversion.UpgradedPastError
			if refused != nil {
				errors.As(error(refused), &got)
			}
			switch {
			case tt.want == nil && refused != nil:
				t.Errorf("refused %v, want no refusal", refused)
			case tt.want != nil && (got == nil || *got != *tt.want):
				t.Errorf("the refusal carries %+v, want %+v", got, tt.want)
			}
		})
	}
}
