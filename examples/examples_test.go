package examples_test

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	civoclustermodule "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	civopoolmodule "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	doclustermodule "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	dopoolmodule "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	kindspkg "github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// kind is what the examples of one folder are checked against.
type kind struct {
	name string
	// load parses and validates a file into the kind's stack input and returns the program
	// body that deploys it.
	load func(path string) (proto.Message, pulumi.RunFunc, error)
	// cloudType is the provider resource the kind exists to create.
	cloudType string
	// outputs are the stack outputs the kind's API declares, in order; secrets those of them it
	// marks secret (tools/docgen writes both into docs/deploying.md).
	outputs []string
	secrets map[string]bool
}

// kindOf is what the examples of a kind's folder are checked against, all of it from the list of
// kinds: its stack input and program, the cloud resource its effects table names, and the outputs
// its manifest's status.outputs declares (kinds.Kind.Outputs).
func kindOf(k kindspkg.Kind) kind {
	out := kind{
		name: k.Name,
		load: func(path string) (proto.Message, pulumi.RunFunc, error) {
			input := k.NewStackInput()
			if err := stackinput.LoadFile(path, input); err != nil {
				return nil, nil, err
			}
			return input, func(ctx *pulumi.Context) error { return k.Resources(ctx, input) }, nil
		},
		cloudType: k.Effects.Types[effects.Cluster],
		secrets:   map[string]bool{},
	}
	if out.cloudType == "" {
		out.cloudType = k.Effects.Types[effects.NodePool]
	}
	for _, o := range k.Outputs() {
		out.outputs = append(out.outputs, o.Name)
		out.secrets[o.Name] = o.Secret
	}
	return out
}

// kinds maps each folder of examples/ to its kind: the kind's program name. A folder that is not
// here fails the test.
var kinds = func() map[string]kind {
	out := map[string]kind{}
	for _, k := range registry.Kinds() {
		out[k.Project] = kindOf(k)
	}
	return out
}()

const stackInputSuffix = ".stack-input.yaml"

// programFolders hold programs in Pulumi languages rather than manifests; each is tested where
// its language is: go by its own tests, pulumi-yaml by pkg/pulumi/componentprovider's (through the
// component provider), typescript by `make check-sdks` (type-checked against the generated SDK).
//
// ci holds CI workflows, not manifests: e2e runs the GitHub workflow's steps (e2e/ci_test.go).
// policy holds policy files (rules over manifests), run against the examples by policy_test.go.
var programFolders = map[string]bool{"go": true, "pulumi-yaml": true, "typescript": true, "ci": true, "policy": true}

// exampleFiles returns every manifest and stack input under examples/.
func exampleFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && programFolders[path] {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no example files found")
	}
	return files
}

// isolate keeps the environment's credentials and stack-input settings out of the plans.
func isolate(t *testing.T) {
	for _, env := range []string{civo.TokenEnv, civo.APIURLEnv, digitalocean.TokenEnv,
		digitalocean.APIURLEnv, stackinput.FileEnv} {
		t.Setenv(env, "")
	}
}

func TestEveryExampleValidatesAndPlansItsKind(t *testing.T) {
	isolate(t)
	for _, path := range exampleFiles(t) {
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			folder := filepath.Dir(path)
			k, ok := kinds[folder]
			if !ok {
				t.Fatalf("%s is in folder %q, which maps to no kind; add it to kinds", path, folder)
			}
			input, body, err := k.load(path)
			if err != nil {
				t.Fatalf("invalid example: %v", err)
			}
			target := apikinds.Target(input).ProtoReflect()
			if got := target.Get(target.Descriptor().Fields().ByName("kind")).String(); got != k.name {
				t.Errorf("kind = %q, want %q for folder %s", got, k.name, folder)
			}
			p, err := mockrun.Run(body, mockrun.Options{Preview: true})
			if err != nil {
				t.Fatalf("plan failed: %v", err)
			}
			if len(p.OfType(k.cloudType)) == 0 {
				t.Errorf("registered no %s", k.cloudType)
			}
			// Clusters are protected unless the manifest turns protection off; pools have no
			// protection of their own.
			spec := target.Get(target.Descriptor().Fields().ByName("spec")).Message()
			wantProtect := false
			if fd := spec.Descriptor().Fields().ByName("deletion_protection"); fd != nil {
				wantProtect = !spec.Has(fd) || spec.Get(fd).Bool()
			}
			for _, r := range p.OfType(k.cloudType) {
				if r.Protect != wantProtect {
					t.Errorf("%s::%s protect = %t, want %t", r.Type, r.Name, r.Protect, wantProtect)
				}
			}
			for _, r := range p.Resources {
				if r.Protect && r.Type != k.cloudType {
					t.Errorf("%s::%s is protected; only the cluster is", r.Type, r.Name)
				}
			}
			for _, name := range k.outputs {
				out, ok := p.Outputs[name]
				if !ok {
					t.Errorf("output %s is not exported", name)
					continue
				}
				if want := k.secrets[name]; out.Secret != want {
					t.Errorf("output %s secret = %t, want %t", name, out.Secret, want)
				}
			}
			if len(p.Outputs) != len(k.outputs) {
				names := make([]string, 0, len(p.Outputs))
				for name := range p.Outputs {
					names = append(names, name)
				}
				slices.Sort(names)
				t.Errorf("exported %v, want exactly %v", names, k.outputs)
			}
		})
	}
}

func TestEveryExampleRegistersOnlyWhatThePinnedProvidersAccept(t *testing.T) {
	isolate(t)
	for _, path := range exampleFiles(t) {
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			_, body, err := kinds[filepath.Dir(path)].load(path)
			if err != nil {
				t.Fatalf("invalid example: %v", err)
			}
			providerschema.AssertPlanConforms(t, body)
		})
	}
}

func TestEveryScenarioComesAsABareManifestAndAStackInputThatPlanTheSame(t *testing.T) {
	isolate(t)
	files := exampleFiles(t)
	for _, path := range files {
		if strings.HasSuffix(path, stackInputSuffix) {
			bare := strings.TrimSuffix(path, stackInputSuffix) + ".yaml"
			if !slices.Contains(files, bare) {
				t.Errorf("%s has no bare manifest %s", path, bare)
			}
			continue
		}
		stackInputPath := strings.TrimSuffix(path, filepath.Ext(path)) + stackInputSuffix
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			if !slices.Contains(files, stackInputPath) {
				t.Fatalf("%s has no stack input %s", path, stackInputPath)
			}
			k, ok := kinds[filepath.Dir(path)]
			if !ok {
				t.Fatalf("folder %s maps to no kind", filepath.Dir(path))
			}
			bareInput, barePlan := planOf(t, k, path)
			stackInput, stackPlan := planOf(t, k, stackInputPath)
			if !proto.Equal(apikinds.Target(bareInput), apikinds.Target(stackInput)) {
				t.Errorf("the manifests differ:\n%s: %v\n%s: %v", path, apikinds.Target(bareInput),
					stackInputPath, apikinds.Target(stackInput))
			}
			if barePlan != stackPlan {
				t.Errorf("%s and %s plan differently:\n%s\n---\n%s", path, stackInputPath, barePlan, stackPlan)
			}
		})
	}
}

// planOf loads path as kind k and returns the input and the preview plan as JSON.
func planOf(t *testing.T, k kind, path string) (proto.Message, string) {
	t.Helper()
	input, body, err := k.load(path)
	if err != nil {
		t.Fatalf("invalid example: %v", err)
	}
	p, err := mockrun.Run(body, mockrun.Options{Preview: true})
	if err != nil {
		t.Fatalf("plan of %s failed: %v", path, err)
	}
	if len(p.Resources) == 0 {
		t.Fatalf("plan of %s registered nothing", path)
	}
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	return input, buf.String()
}

func TestTheKindsCoverEveryExampleFolder(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range exampleFiles(t) {
		seen[filepath.Dir(path)] = true
	}
	for folder := range kinds {
		if !seen[folder] {
			t.Errorf("kind folder %s has no examples", folder)
		}
	}
	for folder := range seen {
		if _, ok := kinds[folder]; !ok {
			t.Errorf("example folder %s maps to no kind", folder)
		}
	}
}

// Each kind's options are a type of its own, so that, say, a cluster's WithVpcID passed to a
// node pool's New does not compile. Go's assignability is what the compiler checks.
func TestEachKindsOptionsAreATypeOfItsOwn(t *testing.T) {
	options := map[string]reflect.Type{
		"civo cluster":         reflect.TypeOf(civoclustermodule.WithNetworkID(nil)),
		"civo node pool":       reflect.TypeOf(civopoolmodule.WithClusterID(nil)),
		"digitalocean cluster": reflect.TypeOf(doclustermodule.WithVpcID(nil)),
		"digitalocean pool":    reflect.TypeOf(dopoolmodule.WithClusterID(nil)),
	}
	for a, ta := range options {
		for b, tb := range options {
			if a != b && ta.AssignableTo(tb) {
				t.Errorf("an option of the %s (%v) can be given to the %s's New (%v)", a, ta, b, tb)
			}
		}
	}
}
