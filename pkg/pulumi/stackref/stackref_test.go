package stackref_test

import (
	"strings"
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackref"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// configKey is a reference config key as mockrun.Run's project sees it.
func configKey(key string) string { return mockrun.Project + ":" + key }

var clusterRef = &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "platform-fra1"}

func TestStackNameFollowsTheConventionUnlessConfigured(t *testing.T) {
	tests := []struct {
		name   string
		ref    *sharedv1.ValueFromRef
		config map[string]string
		want   string
	}{
		{
			name: "organization, lower-case kind and name with the env appended",
			ref:  clusterRef,
			want: "organization/civokubernetescluster/platform-fra1-prod",
		},
		{
			name: "without an env the name stands alone",
			ref:  &sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "platform-ams3"},
			want: "organization/digitaloceankubernetescluster/platform-ams3",
		},
		{
			name:   "stackReferenceOrganization replaces the default organization",
			ref:    clusterRef,
			config: map[string]string{configKey(stackref.OrganizationConfigKey): "acme"},
			want:   "acme/civokubernetescluster/platform-fra1-prod",
		},
		{
			name: "a stackReferences entry for the name wins over the convention and the organization",
			ref:  clusterRef,
			config: map[string]string{
				configKey(stackref.OrganizationConfigKey): "acme",
				configKey(stackref.StacksConfigKey):       `{"platform-fra1": "acme/clusters/fra1-production"}`,
			},
			want: "acme/clusters/fra1-production",
		},
		{
			name: "a stackReferences object without the name falls back to the convention",
			ref:  clusterRef,
			config: map[string]string{
				configKey(stackref.StacksConfigKey): `{"platform-ams3": "acme/clusters/ams3"}`,
			},
			want: "organization/civokubernetescluster/platform-fra1-prod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			_, err := mockrun.Run(func(ctx *pulumi.Context) error {
				var err error
				got, err = stackref.StackName(ctx, tt.ref)
				return err
			}, mockrun.Options{Config: tt.config})
			if err != nil {
				t.Fatalf("StackName() failed: %v", err)
			}
			if got != tt.want {
				t.Errorf("StackName() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStackNameRejectsStackReferencesThatAreNotAJSONObject(t *testing.T) {
	for _, text := range []string{`not json`, `["acme/a/b"]`, `{"platform-fra1": 3}`} {
		t.Run(text, func(t *testing.T) {
			var err error
			_, runErr := mockrun.Run(func(ctx *pulumi.Context) error {
				_, err = stackref.StackName(ctx, clusterRef)
				return nil
			}, mockrun.Options{Config: map[string]string{configKey(stackref.StacksConfigKey): text}})
			if runErr != nil {
				t.Fatalf("mockrun.Run: %v", runErr)
			}
			if err == nil {
				t.Fatalf("StackName() accepted stackReferences %q", text)
			}
			if !strings.Contains(err.Error(), stackref.StacksConfigKey) {
				t.Errorf("error %q does not name the config key %s", err, stackref.StacksConfigKey)
			}
		})
	}
}

// resolve runs Resolve under mockrun.Run and exports what it returns as "value".
func resolve(ref *sharedv1.StringValueOrRef, opts mockrun.Options) (*mockrun.Result, error) {
	return mockrun.Run(func(ctx *pulumi.Context) error {
		v, err := stackref.Resolve(ctx, "pool", "cluster", ref, "cluster_id")
		if err != nil {
			return err
		}
		ctx.Export("value", v)
		return nil
	}, opts)
}

func TestResolveOfALiteralReturnsItAndRegistersNoStackReference(t *testing.T) {
	for _, preview := range []bool{false, true} {
		p, err := resolve(sharedv1.StringValue("0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e"), mockrun.Options{Preview: preview})
		if err != nil {
			t.Fatalf("preview=%t: %v", preview, err)
		}
		if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
			t.Errorf("preview=%t: a literal registered stack references %v", preview, refs)
		}
		if got := p.Outputs["value"]; !got.Known || got.Value != "0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e" {
			t.Errorf("preview=%t: resolved to %+v, want the literal", preview, got)
		}
	}
}

func TestResolveOfAReferenceReadsTheOutputOfTheReferencedStack(t *testing.T) {
	tests := []struct {
		name      string
		fieldPath string
		want      string
	}{
		{"the default output is read when the field path is empty", "", "cluster-123"},
		{"the output the field path names is read", "status.outputs.other_cluster_id", "cluster-456"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "platform-fra1", FieldPath: tt.fieldPath}
			p, err := resolve(sharedv1.StringValueFrom(ref), mockrun.Options{Stacks: map[string]map[string]any{
				"organization/civokubernetescluster/platform-fra1-prod": {
					"cluster_id":       "cluster-123",
					"other_cluster_id": "cluster-456",
				},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Outputs["value"]; !got.Known || got.Value != tt.want {
				t.Errorf("resolved to %+v, want %q", got, tt.want)
			}
			sr, ok := p.Find(mockrun.StackReferenceType, "pool-cluster")
			if !ok {
				t.Fatalf("no stack reference named pool-cluster among %v", p.Resources)
			}
			if sr.Inputs["name"] != "organization/civokubernetescluster/platform-fra1-prod" {
				t.Errorf("stack reference reads stack %v", sr.Inputs["name"])
			}
		})
	}
}

func TestResolveOfAReferenceFailsWhenTheStackLacksTheOutput(t *testing.T) {
	ref := &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "platform-fra1"}
	_, err := resolve(sharedv1.StringValueFrom(ref), mockrun.Options{Stacks: map[string]map[string]any{
		"organization/civokubernetescluster/platform-fra1-prod": {"network_id": "net-1"},
	}})
	if err == nil {
		t.Fatal("resolving an output the stack does not have succeeded")
	}
	for _, want := range []string{`"organization/civokubernetescluster/platform-fra1-prod"`, `"cluster_id"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestResolveOfAReferenceToAnUnknownStackFailsNamingTheStack(t *testing.T) {
	ref := &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "platform-fra1"}
	_, err := resolve(sharedv1.StringValueFrom(ref), mockrun.Options{})
	if err == nil {
		t.Fatal("resolving a reference to a stack that does not exist succeeded")
	}
	if !strings.Contains(err.Error(), "organization/civokubernetescluster/platform-fra1-prod") {
		t.Errorf("error %q does not name the stack", err)
	}
}

func TestResolveOfAReferenceToAnUnknownStackStaysUnknownInAPreview(t *testing.T) {
	ref := &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "platform-fra1"}
	p, err := resolve(sharedv1.StringValueFrom(ref), mockrun.Options{Preview: true})
	if err != nil {
		t.Fatalf("a preview failed on an unresolved reference: %v", err)
	}
	if got := p.Outputs["value"]; got.Known {
		t.Errorf("an unresolved reference resolved to %+v in a preview, want unknown", got)
	}
	if _, ok := p.Find(mockrun.StackReferenceType, "pool-cluster"); !ok {
		t.Errorf("no stack reference named pool-cluster among %v", p.Resources)
	}
}

func TestResolveRejectsBadStackReferencesConfigBeforeRegisteringAnything(t *testing.T) {
	ref := &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "platform-fra1"}
	_, err := resolve(sharedv1.StringValueFrom(ref), mockrun.Options{Config: map[string]string{configKey(stackref.StacksConfigKey): "{"}})
	if err == nil || !strings.Contains(err.Error(), stackref.StacksConfigKey) {
		t.Errorf("Resolve() error = %v, want one naming %s", err, stackref.StacksConfigKey)
	}
}

func TestStackNameWithoutAKindFailsUnlessTheNameIsMapped(t *testing.T) {
	noKind := &sharedv1.ValueFromRef{Name: "platform-fra1"}
	var got string
	var err error
	if _, runErr := mockrun.Run(func(ctx *pulumi.Context) error {
		got, err = stackref.StackName(ctx, noKind)
		return nil
	}, mockrun.Options{}); runErr != nil {
		t.Fatalf("mockrun.Run: %v", runErr)
	}
	if err == nil || !strings.Contains(err.Error(), "no kind") || !strings.Contains(err.Error(), stackref.StacksConfigKey) {
		t.Errorf("StackName() without kind = %q, %v; want an error that says kind is missing and names %s", got, err, stackref.StacksConfigKey)
	}
	if _, runErr := mockrun.Run(func(ctx *pulumi.Context) error {
		got, err = stackref.StackName(ctx, noKind)
		return err
	}, mockrun.Options{Config: map[string]string{configKey(stackref.StacksConfigKey): `{"platform-fra1": "acme/p/s"}`}}); runErr != nil {
		t.Fatalf("a mapped name without kind failed: %v", runErr)
	}
	if got != "acme/p/s" {
		t.Errorf("StackName() = %q, want the mapped stack", got)
	}
}
