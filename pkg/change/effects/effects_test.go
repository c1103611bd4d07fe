package effects_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// manifestOf is an empty manifest of the kind: its stack input's target, of the type the API
// registers, so that a kind added to the list is found here too.
func manifestOf(kind string) (proto.Message, bool) {
	k, ok := registry.Kinds().ByName(kind)
	if !ok {
		return nil, false
	}
	target := k.StackInput().Fields().ByName("target")
	if target == nil || target.Message() == nil {
		return nil, false
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(target.Message().FullName())
	if err != nil {
		return nil, false
	}
	return mt.New().Interface(), true
}

// notExposed are the providers' attributes no manifest field maps to, each with why.
// civoPoolByPlugin: the module registers the plugin's own pool (clusterplane:civo:NodePool).
const civoPoolByPlugin = "not registered: the clusterplane plugin manages Civo pools, since the civo provider cannot scale them"

var notExposed = map[string]string{
	"civo_kubernetes_node_pool.cluster_id":                          civoPoolByPlugin,
	"civo_kubernetes_node_pool.label":                               civoPoolByPlugin,
	"civo_kubernetes_node_pool.labels":                              civoPoolByPlugin,
	"civo_kubernetes_node_pool.node_count":                          civoPoolByPlugin,
	"civo_kubernetes_node_pool.public_ip_node_pool":                 civoPoolByPlugin,
	"civo_kubernetes_node_pool.size":                                civoPoolByPlugin,
	"civo_kubernetes_node_pool.taint":                               civoPoolByPlugin,
	"civo_kubernetes_cluster.num_target_nodes":                      "deprecated by the provider; the module sends pools instead",
	"civo_kubernetes_cluster.target_nodes_size":                     "deprecated by the provider; the module sends pools instead",
	"civo_kubernetes_cluster.pools":                                 "the module always sends exactly one pool",
	"civo_kubernetes_cluster.pools.label":                           "not sent: Civo names the default pool",
	"civo_kubernetes_cluster.write_kubeconfig":                      "always true, a module constant",
	"civo_kubernetes_node_pool.(region)":                            "not an attribute: spec.region sets the provider's region",
	"civo_firewall.name":                                            "follows spec.clusterName, which updates in place",
	"civo_firewall.network_id":                                      "follows spec.network, which is refused",
	"civo_firewall.region":                                          "follows spec.region, which is refused",
	"civo_firewall.create_default_rules":                            "always false, a module constant",
	"civo_firewall.egress_rule":                                     "a module constant: all egress allowed",
	"digitalocean_kubernetes_cluster.node_pool":                     "the block; its fields have rows of their own",
	"digitalocean_kubernetes_cluster.maintenance_policy.day":        "part of spec.maintenanceWindow, one row",
	"digitalocean_kubernetes_cluster.maintenance_policy.start_time": "part of spec.maintenanceWindow, one row",
}

// providerEffects reads ../shared/providers/change-effects.json: attribute to what a change does.
func providerEffects(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "providers", "change-effects.json"))
	if os.IsNotExist(err) {
		t.Skip("../shared/providers/change-effects.json is absent (a user's clone has no ../shared): the table is not checked against the providers")
	}
	if err != nil {
		t.Fatal(err)
	}
	var byResource map[string]map[string]string
	if err := json.Unmarshal(data, &byResource); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for res, attrs := range byResource {
		for attr, effect := range attrs {
			// Keys may carry a note: "kube_config (Sensitive; ...)".
			out[res+"."+strings.SplitN(attr, " ", 2)[0]] = effect
		}
	}
	return out
}

// providerClass reads what the provider does from change-effects.json's words.
func providerClass(text string) string {
	switch t := strings.ToLower(text); {
	case strings.HasPrefix(t, "computed"):
		return "computed"
	case strings.HasPrefix(t, "forcenew"):
		return "replace"
	case strings.HasPrefix(t, "error-at-"), strings.HasPrefix(t, "panic"):
		return "refused"
	case strings.HasPrefix(t, "no-op"), strings.HasPrefix(t, "not in schema"):
		return "no-op"
	case strings.HasPrefix(t, "update"):
		return "update"
	}
	return "unknown: " + text
}

func TestEveryRowAgreesWithWhatTheProviderDoes(t *testing.T) {
	provider := providerEffects(t)
	for _, kind := range registry.Kinds().Tables() {
		for _, row := range kind.Rows {
			// The plugin's own resource has no Terraform provider: iac/pulumi/civokubernetesnodepool/poolresource's tests hold
			// its rows against the plugin's Diff. A change clusterplane itself refuses on a stack
			// (metadata.env) never reaches the provider.
			if row.Attribute == "" || strings.HasPrefix(row.Attribute, "clusterplane_") || row.Refusal == effects.Identity {
				continue
			}
			t.Run(kind.Name+"/"+row.Path, func(t *testing.T) {
				text, ok := provider[row.Attribute]
				if !ok {
					t.Fatalf("%s is not in change-effects.json", row.Attribute)
				}
				var allowed []effects.Effect
				switch class := providerClass(text); class {
				case "replace":
					allowed = []effects.Effect{effects.Replace}
				case "refused":
					allowed = []effects.Effect{effects.Refused}
				case "no-op":
					// A change that silently does not happen must not read as an update.
					allowed = []effects.Effect{effects.Refused, effects.Ignored}
				case "update":
					allowed = []effects.Effect{effects.Update}
				default:
					t.Fatalf("%s: the provider's effect %q is not a change a manifest can make", row.Attribute, class)
				}
				if !contains(allowed, row.Effect) {
					t.Errorf("%s is %s, but the provider says %q for %s", row.Path, row.Effect, text, row.Attribute)
				}
				if row.Reason == "" {
					t.Errorf("%s has no reason", row.Path)
				}
			})
		}
	}
}

func TestConditionalProviderEffectsHaveTheirConditionInTheTable(t *testing.T) {
	provider := providerEffects(t)
	do := registry.Kinds().Table("DigitalOceanKubernetesCluster")
	spec := (&doclusterv1.DigitalOceanKubernetesClusterSpec{}).ProtoReflect()
	version, _ := do.Lookup("spec.kubernetesVersion")
	if !strings.Contains(provider[version.Attribute], "forcenew-if-decreased") {
		t.Fatalf("the provider no longer replaces on a lower version (%q): revisit the version row", provider[version.Attribute])
	}
	cases := []struct {
		name     string
		row      string
		old, new protoreflect.Value
		want     effects.Effect
	}{
		// The provider would replace; the module refuses instead (it checks the live version).
		{"a lower DigitalOcean version is refused", "spec.kubernetesVersion",
			protoreflect.ValueOfString("1.31.1-do.5"), protoreflect.ValueOfString("1.30.9-do.2"), effects.Refused},
		{"a higher DigitalOcean version updates", "spec.kubernetesVersion",
			protoreflect.ValueOfString("1.30.9-do.2"), protoreflect.ValueOfString("1.31.1-do.5"), effects.Update},
		{"a lower patch of the same minor is refused", "spec.kubernetesVersion",
			protoreflect.ValueOfString("1.31.1-do.5"), protoreflect.ValueOfString("1.31.1-do.4"), effects.Refused},
		{"turning high availability off is refused", "spec.highlyAvailable",
			protoreflect.ValueOfBool(true), protoreflect.ValueOfBool(false), effects.Refused},
		{"turning high availability on updates", "spec.highlyAvailable",
			protoreflect.ValueOfBool(false), protoreflect.ValueOfBool(true), effects.Update},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row, ok := do.Lookup(c.row)
			if !ok {
				t.Fatalf("no row %s", c.row)
			}
			if got := row.Decide(effects.Change{Old: c.old, New: c.new, OldSpec: spec, NewSpec: spec}).Effect; got != c.want {
				t.Errorf("effect = %s, want %s", got, c.want)
			}
		})
	}
	if !strings.Contains(provider["digitalocean_kubernetes_cluster.ha"], "rejects true->false") {
		t.Errorf("the provider's ha note changed (%q): revisit the highlyAvailable row", provider["digitalocean_kubernetes_cluster.ha"])
	}
}

func TestEveryProviderAttributeHasARowOrAReasonItIsNotExposed(t *testing.T) {
	provider := providerEffects(t)
	mapped := map[string]bool{}
	for _, kind := range registry.Kinds().Tables() {
		for _, row := range kind.Rows {
			mapped[row.Attribute] = true
		}
	}
	var missing []string
	for attr, text := range provider {
		if providerClass(text) == "computed" {
			continue
		}
		_, skipped := notExposed[attr]
		switch {
		case mapped[attr] && skipped:
			t.Errorf("%s has a row and is listed as not exposed", attr)
		case !mapped[attr] && !skipped:
			missing = append(missing, attr)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("provider attributes with neither a row nor a reason: %v", missing)
	}
	for attr := range notExposed {
		if _, ok := provider[attr]; !ok {
			t.Errorf("notExposed names %s, which change-effects.json does not have", attr)
		}
	}
}

// changingIt finds the sentence that says what changing a field does.
var changingIt = regexp.MustCompile(`Changing it (updates|replaces|is refused|is ignored)\b`)

var sentenceEffects = map[string]effects.Effect{
	"updates": effects.Update, "replaces": effects.Replace, "is refused": effects.Refused, "is ignored": effects.Ignored,
}

// commentEffect is the effect a field's proto comment claims, and how many claims it makes.
func commentEffect(comment string) (effects.Effect, int) {
	matches := changingIt.FindAllStringSubmatch(strings.Join(strings.Fields(comment), " "), -1)
	if len(matches) == 0 {
		return "", 0
	}
	return sentenceEffects[matches[0][1]], len(matches)
}

func TestCommentEffectReadsTheSentenceAndCountsClaims(t *testing.T) {
	cases := []struct {
		comment string
		want    effects.Effect
		claims  int
	}{
		{"Size. Changing it replaces the\ncluster.", effects.Replace, 1},
		{"Changing it is refused: immutable.", effects.Refused, 1},
		{"Changing it updates it. Changing it replaces it.", effects.Update, 2},
		{"Renaming it renames it in place.", "", 0},
	}
	for _, c := range cases {
		got, n := commentEffect(c.comment)
		if got != c.want || n != c.claims {
			t.Errorf("commentEffect(%q) = %s, %d; want %s, %d", c.comment, got, n, c.want, c.claims)
		}
	}
}

// fieldAt returns the field a manifest path names.
func fieldAt(m protoreflect.MessageDescriptor, path string) protoreflect.FieldDescriptor {
	var fd protoreflect.FieldDescriptor
	for _, name := range strings.Split(path, ".") {
		if m == nil {
			return nil
		}
		if fd = m.Fields().ByJSONName(name); fd == nil {
			return nil
		}
		m = fd.Message()
	}
	return fd
}

func TestEveryProtoCommentSaysWhatTheTableSays(t *testing.T) {
	if err := apidoc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, kind := range registry.Kinds().Tables() {
		manifest, ok := manifestOf(kind.Name)
		if !ok {
			t.Fatalf("no manifest for kind %s", kind.Name)
		}
		for _, row := range kind.Rows {
			// metadata is shared by all kinds and says what each kind does with it in words;
			// only the rename, the same everywhere, carries the sentence.
			if !strings.HasPrefix(row.Path, "spec.") && row.Path != "metadata.name" {
				continue
			}
			t.Run(kind.Name+"/"+row.Path, func(t *testing.T) {
				fd := fieldAt(manifest.ProtoReflect().Descriptor(), row.Path)
				if fd == nil {
					t.Fatalf("the %s manifest has no field %s", kind.Name, row.Path)
				}
				claimed, n := commentEffect(apidoc.Comment(fd.FullName()))
				switch {
				case n == 0:
					t.Errorf("the comment of %s has no \"Changing it ...\" sentence; the table says %s", fd.FullName(), row.Effect)
				case n > 1:
					t.Errorf("the comment of %s says what changing it does %d times", fd.FullName(), n)
				case claimed != row.Effect && !(row.Resource == effects.Stack && claimed == effects.Replace):
					t.Errorf("the comment of %s says it %s, the table says %s", fd.FullName(), claimed, row.Effect)
				}
			})
		}
	}
}

func TestEveryRowNamesAFieldOfItsKindAndAResourceItRegisters(t *testing.T) {
	for _, kind := range registry.Kinds().Tables() {
		manifest, _ := manifestOf(kind.Name)
		for _, row := range kind.Rows {
			if strings.HasPrefix(row.Path, "providerConfig.") {
				continue
			}
			if fieldAt(manifest.ProtoReflect().Descriptor(), row.Path) == nil {
				t.Errorf("%s: %s is not a field of the manifest", kind.Name, row.Path)
			}
			if _, ok := kind.Types[row.Resource]; !ok && row.Resource != effects.Stack {
				t.Errorf("%s: %s affects %s, which the kind does not register", kind.Name, row.Path, row.Resource)
			}
		}
	}
}

// pitfallRow is a line of the Pitfalls page's table of changes that replace or are refused
// (docs/pitfalls.md, which tools/docgen generates; this test holds the generator to the table):
// | kind | `path` | effect |
var pitfallRow = regexp.MustCompile("^\\| *(\\w+) *\\| *`([\\w.]+)` *\\| *`?(replace|refused)`?[^|]*\\|")

func TestThePitfallsPageListsEveryReplacingOrRefusedChangeAndNothingElse(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "pitfalls.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if m := pitfallRow.FindStringSubmatch(line); m != nil {
			listed[m[1]+" "+m[2]] = m[3]
		}
	}
	if len(listed) == 0 {
		t.Fatal("docs/pitfalls.md has no table of changes that replace or are refused")
	}
	for _, kind := range registry.Kinds().Tables() {
		for _, row := range kind.Rows {
			key := kind.Name + " " + row.Path
			worst := row.Effect
			// A condition may make a field replace (a lower version) or be refused (HA off), and
			// removing a field may be refused.
			if row.When != nil || row.Removed != nil {
				for _, e := range conditionalEffects(row, spec(kind.Name)) {
					if e == effects.Replace || (e == effects.Refused && worst != effects.Replace) {
						worst = e
					}
				}
			}
			got, ok := listed[key]
			switch {
			case worst.Blocks() && !ok:
				t.Errorf("docs/pitfalls.md does not list %s (%s)", key, worst)
			case worst.Blocks() && got != string(worst):
				t.Errorf("docs/pitfalls.md lists %s as %s, the table says %s", key, got, worst)
			case !worst.Blocks() && ok:
				t.Errorf("docs/pitfalls.md lists %s as %s, but the table says it %s", key, got, worst)
			}
			delete(listed, key)
		}
	}
	for key := range listed {
		t.Errorf("docs/pitfalls.md lists %s, which the table does not know", key)
	}
}

// spec is an empty spec of kind, for a row's conditions.
func spec(kind string) protoreflect.Message {
	manifest, _ := manifestOf(kind)
	m := manifest.ProtoReflect()
	return m.NewField(m.Descriptor().Fields().ByName("spec")).Message()
}

// conditionalEffects tries a row's condition on the changes that tell its cases apart.
func conditionalEffects(row effects.Row, spec protoreflect.Message) []effects.Effect {
	var out []effects.Effect
	for _, d := range conditionalDecisions(row, spec) {
		out = append(out, d.Effect)
	}
	return out
}

// conditionalDecisions are a row's decisions on removal and under its condition, tried on the
// changes that tell its cases apart.
func conditionalDecisions(row effects.Row, spec protoreflect.Message) []effects.Decision {
	tries := []effects.Change{
		{Old: protoreflect.ValueOfString("1.31.1-do.5"), New: protoreflect.ValueOfString("1.30.1-do.0")},
		{Old: protoreflect.ValueOfBool(true), New: protoreflect.ValueOfBool(false)},
		{Old: protoreflect.ValueOfBool(false), New: protoreflect.ValueOfBool(true)},
	}
	var out []effects.Decision
	if row.Removed != nil {
		out = append(out, *row.Removed)
	}
	for _, c := range tries {
		c.OldSpec, c.NewSpec = spec, spec
		func() {
			defer func() { _ = recover() }() // a condition reads only the kind of value it expects
			if row.When == nil {
				return
			}
			if d, ok := row.When(c); ok {
				out = append(out, d)
			}
		}()
	}
	return out
}

// Promise: pitfalls-removals-refused-with-what-to-write
func TestEveryRefusedChangeSaysWhatTheProviderDoesWithItAndNoOtherDoes(t *testing.T) {
	for _, kind := range registry.Kinds().Tables() {
		for _, row := range kind.Rows {
			decisions := append([]effects.Decision{{Effect: row.Effect, Reason: row.Reason, Refusal: row.Refusal}},
				conditionalDecisions(row, spec(kind.Name))...)
			for _, d := range decisions {
				switch {
				case d.Effect == effects.Refused && d.Refusal == "":
					t.Errorf("%s %s: refused (%s) without saying what the provider does with it", kind.Name, row.Path, d.Reason)
				case d.Effect != effects.Refused && d.Refusal != "":
					t.Errorf("%s %s: %s, yet a refusal (%s)", kind.Name, row.Path, d.Effect, d.Refusal)
				}
			}
		}
	}
}

func contains(list []effects.Effect, e effects.Effect) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// pulumiTypes are the Pulumi type tokens of the resources the facts name.
var pulumiTypes = func() map[string]string {
	out := map[string]string{}
	for token, resource := range effects.TerraformResources(registry.Kinds().Tables()) {
		out[resource] = token
	}
	return out
}()

func TestEveryAttributeFactAgreesWithThePinnedSchemasAndTheProvidersTable(t *testing.T) {
	provider := providerEffects(t)
	dir, ok := providerschema.Dir()
	if !ok {
		t.Skip("../shared/providers is absent (a user's clone has none): the facts are not checked against the pinned schemas")
	}
	schema, err := providerschema.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range registry.Kinds().Tables() {
		for name, a := range kind.Attributes {
			if strings.HasPrefix(name, "clusterplane_") {
				continue // the plugin's own resource: see above
			}
			t.Run(kind.Name+"/"+name, func(t *testing.T) {
				resource, attribute, _ := strings.Cut(name, ".")
				requiredInput, inState, found := schema.Flags(pulumiTypes[resource], attribute)
				if !found {
					t.Fatalf("the pinned schema of %s has no %s", resource, attribute)
				}
				// Pulumi names resources itself, so a Terraform-required name is optional to it.
				autonamed := attribute == "name" && a.Required && !requiredInput
				if a.Required != requiredInput && !autonamed {
					t.Errorf("Required = %t, the pinned schema says %t", a.Required, requiredInput)
				}
				if a.Optional == a.Required {
					t.Errorf("Optional = %t and Required = %t: an attribute is one or the other", a.Optional, a.Required)
				}
				if want := inState && !a.Required; a.Computed != want {
					t.Errorf("Computed = %t, the pinned schema says %t (always in state, not required)", a.Computed, want)
				}
				if text, ok := provider[name]; ok {
					if want := providerClass(text) == "replace"; a.ForceNew != want {
						t.Errorf("ForceNew = %t, change-effects.json says %q", a.ForceNew, text)
					}
				}
				if a.Source == "" {
					t.Error("no source")
				}
			})
		}
	}
}

func TestEveryRowsAttributeHasFactsAndEveryFactARowOrAReason(t *testing.T) {
	for _, kind := range registry.Kinds().Tables() {
		named := map[string]bool{}
		for _, row := range kind.Rows {
			if row.Attribute == "" {
				continue
			}
			named[row.Attribute] = true
			if _, ok := kind.Attributes[row.Attribute]; !ok {
				t.Errorf("%s %s sends %s, which has no facts", kind.Name, row.Path, row.Attribute)
			}
		}
		for name, a := range kind.Attributes {
			parent := name[:max(strings.LastIndex(name, "."), 0)]
			if !named[name] && !named[parent] && a.Constant == "" {
				t.Errorf("%s: %s is named by no row and is not a module constant", kind.Name, name)
			}
			if named[name] && a.Constant != "" {
				t.Errorf("%s: %s is named by a row and said to be a constant", kind.Name, name)
			}
		}
	}
}

func TestFieldsNamesTheManifestFieldsBehindAPropertyTheEngineReportsChanged(t *testing.T) {
	const doCluster = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	cases := []struct {
		kind, token, path string
		want              []string
	}{
		{"DigitalOceanKubernetesCluster", doCluster, "nodePool.nodeCount", []string{"spec.defaultNodePool.nodeCount"}},
		{"DigitalOceanKubernetesCluster", doCluster, "nodePool.labels.workload", []string{"spec.defaultNodePool.labels"}},
		{"DigitalOceanKubernetesCluster", doCluster, "nodePool.taints", []string{"spec.defaultNodePool.taints"}},
		// The cluster's tags carry the manifest's tags and those derived from its metadata.
		{"DigitalOceanKubernetesCluster", doCluster, "tags", []string{"metadata.env", "metadata.id", "metadata.labels", "metadata.org", "spec.tags"}},
		{"CivoKubernetesCluster", "civo:index/firewall:Firewall", "ingressRules", []string{"spec.apiServerAllowedCidrs"}},
		{"DigitalOceanKubernetesCluster", doCluster, "endpoint", nil},
		{"DigitalOceanKubernetesCluster", "civo:index/firewall:Firewall", "name", nil},
	}
	for _, c := range cases {
		got := registry.Kinds().Table(c.kind).Fields(c.token, c.path)
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("Fields(%s, %s) = %v, want %v", c.token, c.path, got, c.want)
		}
	}
}
