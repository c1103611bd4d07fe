package rotation

import (
	"fmt"
	"strings"
	"testing"
)

func TestTheStepsOfATwoHopRotationLineUpPastTheNinth(t *testing.T) {
	rot := Rotation{Name: "workers", Pool: "spec", Changes: []string{"spec.size"}}
	for i := range 10 {
		rot.Steps = append(rot.Steps, Step{Action: StepCreate, Pool: "p", Detail: fmt.Sprintf("step %d", i+1)})
	}
	var b strings.Builder
	WriteRotation(&b, rot)
	col := -1
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
		at := strings.Index(line, StepCreate)
		if col == -1 {
			col = at
		}
		if at != col {
			t.Errorf("line %q has its action at column %d, the first at %d:\n%s", line, at, col, b.String())
		}
	}
}

// The header names the pool and the fields whose change it rotates for, each once (newcomer6 read
// "(spec: spec.size)", the pool's place written before the paths that already hold it).
func TestARotationsHeaderNamesThePoolAndTheChangedFields(t *testing.T) {
	for _, tt := range []struct {
		rot  Rotation
		want string
	}{
		{Rotation{Name: "workers", Pool: "spec", Changes: []string{"spec.size"}}, "rotation of pool workers (spec.size):"},
		{Rotation{Name: "default", Pool: "spec.defaultNodePool", Changes: []string{"spec.defaultNodePool.size", "spec.defaultNodePool.labels"}},
			"rotation of pool default (spec.defaultNodePool.size, spec.defaultNodePool.labels):"},
	} {
		var b strings.Builder
		WriteRotation(&b, tt.rot)
		if got := strings.TrimSpace(b.String()); got != tt.want {
			t.Errorf("header %q, want %q", got, tt.want)
		}
	}
}
