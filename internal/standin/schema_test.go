package standin

import (
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/providerschema"
	"github.com/clusterplane/clusterplane/pkg/effects"
	"github.com/clusterplane/clusterplane/pkg/plan"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func TestEveryServedResourceTypeIsInThePinnedSchemas(t *testing.T) {
	dir, ok := providerschema.Dir()
	if !ok {
		t.Skip("../shared/providers is absent (a user's clone has none): the served types are not checked against the pinned schemas")
	}
	s, err := providerschema.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for typ := range terraformResources {
		if !s.Knows(typ) {
			t.Errorf("%s is not a resource of the pinned providers' schemas", typ)
		}
	}
}

func TestEveryTypeTheModulesRegisterIsServed(t *testing.T) {
	for _, k := range effects.Kinds() {
		for role, typ := range k.Types {
			// clusterplane's own resources are served by the clusterplane plugin, not a stand-in.
			if (role == effects.Cluster || role == effects.NodePool || role == effects.Firewall) && !strings.HasPrefix(typ, "clusterplane:") {
				if _, ok := terraformResources[typ]; !ok {
					t.Errorf("%s registers %s, which no stand-in serves", k.Name, typ)
				}
			}
		}
	}
}

func TestEveryTerraformResourceHasFactsInEffects(t *testing.T) {
	// Diff finds an attribute's facts by "<terraform resource>.<attribute>": a misspelt resource
	// would find none and update where the provider replaces.
	for typ, tf := range terraformResources {
		if typ == previousCivoPool {
			continue // no module registers it any more: see previousCivoPool
		}
		found := false
		for name := range facts {
			if len(name) > len(tf) && name[:len(tf)+1] == tf+"." {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: pkg/effects has no facts of %s", typ, tf)
		}
	}
}

// invokeTokens records the tokens of the functions the DigitalOcean Go SDK calls.
type invokeTokens struct{ tokens []string }

func (m *invokeTokens) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	m.tokens = append(m.tokens, args.Token)
	return resource.PropertyMap{}, nil
}

func (m *invokeTokens) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	return args.Name, args.Inputs, nil
}

func TestTheServedFunctionsAreTheOnesTheDigitalOceanSDKCalls(t *testing.T) {
	// The cut schemas leave functions out, so the tokens are taken from the pinned Go SDK
	// (github.com/pulumi/pulumi-digitalocean/sdk/v4 v4.57.0) by calling the functions the module
	// calls against mocks, which record the token each one invokes.
	mocks := &invokeTokens{}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		prefix := "1.31."
		if _, err := digitalocean.GetKubernetesVersions(ctx, &digitalocean.GetKubernetesVersionsArgs{VersionPrefix: &prefix}); err != nil {
			return err
		}
		_, err := digitalocean.LookupKubernetesCluster(ctx, &digitalocean.LookupKubernetesClusterArgs{Name: "prod"})
		return err
	}, pulumi.WithMocks("project", "stack", mocks))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(mocks.tokens)
	want := []string{getKubernetesCluster, getKubernetesVersions}
	if len(mocks.tokens) != len(want) || mocks.tokens[0] != want[0] || mocks.tokens[1] != want[1] {
		t.Errorf("the SDK invokes %v, the stand-in serves %v", mocks.tokens, want)
	}
}

func TestTheProviderSettingsTheSchemaServesAreThePinnedProvidersOwn(t *testing.T) {
	dir, ok := providerschema.Dir()
	if !ok {
		t.Skip("../shared/providers is absent (a user's clone has none): the provider settings are not checked against the pinned schemas")
	}
	s, err := providerschema.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for pkg, names := range providerInputs {
		for _, name := range names {
			r := plan.Resource{Type: "pulumi:providers:" + pkg, RawInputs: resource.PropertyMap{resource.PropertyKey(name): resource.NewProperty("x")}}
			for _, problem := range s.Check(r) {
				t.Errorf("%s: %s", pkg, problem)
			}
		}
	}
}
