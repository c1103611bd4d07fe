// Package spectest holds the helpers the spec tests of the API kinds share,
// so that every kind checks its validation rules the same way.
package spectest

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
)

// A DNS prefix of 253 characters, the longest a Kubernetes qualified name allows, and one of 254.
var (
	Prefix253 = strings.Repeat("a.", 126) + "b"
	Prefix254 = strings.Repeat("a.", 126) + "bc"
)

// Violation names a broken rule by field and rule id rather than by message,
// so that a case states what broke, not how it is worded.
type Violation struct{ Field, Rule string }

// AssertViolations checks that err reports exactly want, in any order.
func AssertViolations(t *testing.T, err error, want ...Violation) {
	t.Helper()
	if err == nil {
		t.Fatalf("Validate() = nil, want violations %v", want)
	}
	got, wantSet := map[Violation]int{}, map[Violation]int{}
	for _, v := range validation.Violations(err) {
		got[Violation{v.Field, v.RuleID}]++
	}
	for _, w := range want {
		wantSet[w]++
	}
	if !maps.Equal(got, wantSet) {
		t.Errorf("violations differ\n got: %v\nwant: %v\nerror: %v", got, wantSet, err)
	}
}

// AssertViolationsListed checks that err's text carries one "field: message"
// line for each violation it holds, since that text is all a user sees.
func AssertViolationsListed(t *testing.T, err error) {
	t.Helper()
	for _, v := range validation.Violations(err) {
		if line := v.String(); !strings.Contains(err.Error(), line) {
			t.Errorf("error does not contain %q:\n%v", line, err)
		}
	}
}

var celRuleID = regexp.MustCompile(`\bid: "([^"]+)"`)

// CELRuleIDs returns the ids of the CEL rules declared in the proto files
// matching the patterns, read from the source so that a rule added without
// a test case is noticed. Patterns are relative to the test's package.
func CELRuleIDs(t *testing.T, patterns ...string) []string {
	t.Helper()
	var ids []string
	for _, pattern := range patterns {
		files, _ := filepath.Glob(pattern)
		if len(files) == 0 {
			t.Fatalf("no proto file matches %s", pattern)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range celRuleID.FindAllStringSubmatch(string(src), -1) {
				ids = append(ids, m[1])
			}
		}
	}
	return ids
}
