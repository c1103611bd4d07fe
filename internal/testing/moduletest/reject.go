package moduletest

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// InvalidSpec is a change that breaks a valid spec S, given to New with the options O, and the
// field, relative to the spec, New's error must name.
type InvalidSpec[S, O any] struct {
	Name  string
	Edit  func(S)
	Opts  []O
	Field string
}

// NewRejects is how a kind's New is checked against invalid specs: called as name on each case's
// spec (a fresh one from valid, edited), it must fail naming the component (its kind and name)
// and the field relative to the spec, register nothing, and say nothing of spec. paths. setup,
// when set, runs first in each case (e.g. clearing the provider's environment).
type NewRejects[S, O, R any] struct {
	Kind  string
	Name  string
	New   func(*pulumi.Context, string, S, ...O) (R, error)
	Valid func() S
	Setup func(*testing.T)
}

// Run runs the cases as subtests named by their Name.
func (n NewRejects[S, O, R]) Run(t *testing.T, tests []InvalidSpec[S, O]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if n.Setup != nil {
				n.Setup(t)
			}
			spec := n.Valid()
			tt.Edit(spec)
			var got R
			p, err := RunBody(t, func(ctx *pulumi.Context) error {
				var err error
				got, err = n.New(ctx, n.Name, spec, tt.Opts...)
				return err
			}, mockrun.Options{})
			if err == nil {
				t.Fatalf("New() = %v, want a validation error on %s", got, tt.Field)
			}
			AssertEqual(t, "violated fields", ViolatedFields(err), []string{tt.Field})
			msg := err.Error()
			if !strings.Contains(msg, n.Kind+" "+n.Name) || !strings.Contains(msg, "  "+validation.Camel(tt.Field)+":") {
				t.Errorf("error does not name the component and %s:\n%s", tt.Field, msg)
			}
			if strings.Contains(msg, "spec.") {
				t.Errorf("error path is not relative to the spec:\n%s", msg)
			}
			AssertNothingRegistered(t, p)
		})
	}
}
