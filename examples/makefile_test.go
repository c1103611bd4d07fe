package examples_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Without -fuzzminimizetime go test spends up to a minute minimising every new interesting
// input, so that a fuzz budget of seconds goes almost all to minimising: FuzzParse ran 54
// inputs in 30 s, and 21,891 with -fuzzminimizetime 10x.
func TestEveryFuzzLineOfTheMakefileBoundsTheMinimisingTime(t *testing.T) {
	makefile := readFile(t, filepath.Join(root, "Makefile"))
	if !regexp.MustCompile(`(?m)^FUZZMINIMIZETIME \?= \S+`).MatchString(makefile) {
		t.Error("the Makefile does not set FUZZMINIMIZETIME")
	}
	fuzz := regexp.MustCompile(`\s-fuzz\s`)
	lines := 0
	for _, line := range strings.Split(makefile, "\n") {
		if !fuzz.MatchString(line) {
			continue
		}
		lines++
		if !strings.Contains(line, " -fuzzminimizetime $(FUZZMINIMIZETIME) ") {
			t.Errorf("a fuzz line without -fuzzminimizetime $(FUZZMINIMIZETIME):\n%s", line)
		}
	}
	if lines < 3 {
		t.Errorf("%d fuzz lines in the Makefile, want one per fuzz target (3)", lines)
	}
}
