package moduletest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The table runners below hold the loops the four kinds' module tests shared: each kind's test
// keeps its name and its rows, and the runner does what every row asks.

// ConfigToken and EnvToken are the tokens the token checks give a provider, one in the provider
// config and one in the environment; neither may show anywhere a plan is rendered.
const (
	ConfigToken = "config-token-never-rendered-3f9a1c"
	EnvToken    = "env-token-never-rendered-7b2e5d"
)

// TokenCase is a provider config C, the value of the token's environment variable, and the token
// the provider must be given. An empty Want checks only that the token is sent as a secret.
type TokenCase[C any] struct {
	Name   string
	Config C
	Env    string
	Want   string
}

// TokenSecret is how a kind's provider token is checked: with the case's value in EnvVar and its
// config as the stack input's provider config, the stack program (run with Opts) gives the
// provider of type Type, named after the manifest, the token in input Key only as a secret.
type TokenSecret struct {
	EnvVar, Type, Key string
	Opts              mockrun.Options
}

// CheckTokens runs the cases on s's stack program as subtests named by their Name: each gets the
// token only as a secret, and neither ConfigToken nor EnvToken shows anywhere the plan is
// rendered.
func CheckTokens[I, S, C proto.Message](t *testing.T, s Stack[I, S], secret TokenSecret, cases []TokenCase[C]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			s.Isolate(t)
			t.Setenv(secret.EnvVar, tt.Env)
			in := s.Input()
			setProviderConfig(in, tt.Config)
			p := s.RunInput(t, in, secret.Opts)
			provider := MustFind(t, p, secret.Type, s.Name)
			if tt.Want == "" {
				if got := provider.Inputs[secret.Key]; got != "[secret]" {
					t.Errorf("provider %s renders %v, want [secret]", secret.Key, got)
				}
			} else {
				AssertSecretInput(t, provider, secret.Key, tt.Want)
			}
			for _, token := range []string{ConfigToken, EnvToken} {
				AssertNoLeak(t, p, token)
			}
		})
	}
}

// setProviderConfig sets in's provider_config, a field every kind's stack input has, to config;
// a nil config clears it.
func setProviderConfig(in, config proto.Message) {
	r := in.ProtoReflect()
	fd := fieldNamed(r, "provider_config")
	if config == nil || !config.ProtoReflect().IsValid() {
		r.Clear(fd)
		return
	}
	r.Set(fd, protoreflect.ValueOfMessage(config.ProtoReflect()))
}

// InvalidInput is a change that breaks a valid stack input I, the field (a path from the stack
// input) the error must name and, when set, the one rule of it that is broken.
type InvalidInput[I any] struct {
	Name   string
	Edit   func(I)
	Field  string
	RuleID string
}

// InputRejects is how a kind's Resources is checked against invalid stack inputs: run on each
// case's input (a fresh one from Valid, edited), it must return a validation error naming the
// field (and no other), never show Token (the provider config's, which Valid sets when it is not
// empty), and register nothing. Setup, when set, runs first in each case.
type InputRejects[I any] struct {
	Resources func(*pulumi.Context, I) error
	Valid     func() I
	Token     string
	Setup     func(*testing.T)
}

// Check runs the cases as subtests named by their Name.
func (r InputRejects[I]) Check(t *testing.T, cases []InvalidInput[I]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			if r.Setup != nil {
				r.Setup(t)
			}
			in := r.Valid()
			tt.Edit(in)
			p, err := RunBody(t, func(ctx *pulumi.Context) error { return r.Resources(ctx, in) }, mockrun.Options{})
			if err == nil {
				t.Fatalf("Resources() = nil, want a validation error on %s", tt.Field)
			}
			var verr *validation.Error
			if !errors.As(err, &verr) {
				t.Errorf("Resources returned %T (%v), want a validation error", err, err)
			}
			if !strings.Contains(err.Error(), validation.Camel(tt.Field)+":") {
				t.Errorf("error does not name %s:\n%v", tt.Field, err)
			}
			r.assertViolations(t, err, tt)
			if r.Token != "" && strings.Contains(err.Error(), r.Token) {
				t.Errorf("error shows the token: %v", err)
			}
			AssertNothingRegistered(t, p)
		})
	}
}

// assertViolations checks that the error breaks the case's field only, and its rule when the
// case names one.
func (r InputRejects[I]) assertViolations(t *testing.T, err error, tt InvalidInput[I]) {
	t.Helper()
	if tt.RuleID == "" {
		AssertEqual(t, "violated fields", ViolatedFields(err), []string{tt.Field})
		return
	}
	got := []string{}
	for _, v := range validation.Violations(err) {
		got = append(got, v.Field+" "+v.RuleID)
	}
	AssertEqual(t, "violations", got, []string{tt.Field + " " + tt.RuleID})
}

// RefCase is a reference to another stack's output, the stack configuration it is read with, the
// stack it must then read (whose outputs are Outputs), and the value it must resolve to.
type RefCase struct {
	Name    string
	Ref     *sharedv1.StringValueOrRef
	Config  map[string]string
	Stack   string
	Outputs map[string]any
	Want    string
}

// RefField is a spec field (its name in the proto, such as "network") that may read another
// stack's output: the program must read it through a stack reference named RefName, a child of
// the component of type Component. Opts are the rest of each run's options, such as its State.
type RefField struct {
	Field     string
	RefName   string
	Component string
	Opts      mockrun.Options
}

// EachRef runs each case as a subtest named by its Name: the stack program, with the case's
// reference in f and its stack configuration, must read the case's stack through f's stack
// reference; check then looks where the kind uses the resolved value.
func (s Stack[I, S]) EachRef(t *testing.T, f RefField, cases []RefCase, check func(*testing.T, RefCase, *mockrun.Result)) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			opts := f.Opts
			opts.Config, opts.Stacks = tt.Config, map[string]map[string]any{tt.Stack: tt.Outputs}
			p := s.Run(t, opts, func(in I) { setSpecField(in, f.Field, tt.Ref) })
			ref := MustFind(t, p, mockrun.StackReferenceType, f.RefName)
			if got := ref.Inputs["name"]; got != tt.Stack {
				t.Errorf("stack reference name = %v, want %q", got, tt.Stack)
			}
			AssertParent(t, ref, f.Component+"::"+s.Name)
			check(t, tt, p)
		})
	}
}

// SpecCase is a change to a kind's minimal spec S and what the resource must then be sent: Want
// by dotted path, as AssertInputs takes them, and exactly IgnoreChanges (nothing when nil).
type SpecCase[S any] struct {
	Name          string
	Edit          func(S)
	Want          map[string]any
	IgnoreChanges []string
}

// Sends runs each case as a subtest named by its Name: the stack program on the minimal manifest
// with the case's edit to its spec must send the resource of type typ, named after the manifest,
// the case's inputs and make it ignore exactly the case's changes. Each of also then checks the
// resource too, in every case.
func (s Stack[I, S]) Sends(t *testing.T, typ string, cases []SpecCase[S], also ...func(*testing.T, mockrun.Resource)) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			r := MustFind(t, s.Run(t, mockrun.Options{}, func(in I) { tt.Edit(specOf[S](in)) }), typ, s.Name)
			AssertInputs(t, r.Inputs, tt.Want)
			if !slices.Equal(r.IgnoreChanges, tt.IgnoreChanges) && len(r.IgnoreChanges)+len(tt.IgnoreChanges) > 0 {
				t.Errorf("ignoreChanges = %v, want %v", r.IgnoreChanges, tt.IgnoreChanges)
			}
			for _, check := range also {
				check(t, r)
			}
		})
	}
}
