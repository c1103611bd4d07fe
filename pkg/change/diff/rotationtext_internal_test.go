package diff

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
	writeRotation(&b, rot)
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
