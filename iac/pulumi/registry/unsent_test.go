package registry_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/moduletest"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// minimalStackInput is the kind's smallest valid stack input: the example every kind ships as
// examples/<kind>/minimal.stack-input.yaml, read and validated as the plan command reads it.
func minimalStackInput(t *testing.T, k kinds.Kind) proto.Message {
	t.Helper()
	path := filepath.Join("..", "..", "..", "examples", k.Project, "minimal.stack-input.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s has no minimal example to run its module with: %v", k.Name, err)
	}
	in, err := k.Offline.Parse(program.File{Name: path, Data: data})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return in
}

// clearField unsets the field at a row's path (JSON names, from the manifest, or from the stack
// input for providerConfig) and tells whether it was set.
func clearField(stackInput proto.Message, path string) bool {
	m := stackInput.ProtoReflect()
	parts := strings.Split(path, ".")
	if parts[0] != "providerConfig" {
		m = m.Mutable(m.Descriptor().Fields().ByName("target")).Message()
	}
	for i, name := range parts {
		fd := m.Descriptor().Fields().ByJSONName(name)
		if fd == nil || !m.Has(fd) {
			return false
		}
		if i == len(parts)-1 {
			m.Clear(fd)
			return true
		}
		if fd.Message() == nil || fd.IsList() || fd.IsMap() {
			return false
		}
		m = m.Mutable(fd).Message()
	}
	return false
}

// sentAttributes are the provider attributes the plan's cloud resources were registered with,
// named as the effects table names them ("digitalocean_kubernetes_cluster.node_pool.size"), with
// the value sent (the first, in a list of blocks). A null input is not sent; an unknown or secret
// one is.
func sentAttributes(p *mockrun.Result) map[string]any {
	resources := effects.TerraformResources(registry.Kinds().Tables())
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for key, e := range v {
				if e == nil {
					continue
				}
				name := prefix + "." + effects.TerraformName(key)
				if _, seen := out[name]; !seen {
					out[name] = e
				}
				walk(name, e)
			}
		case []any:
			for _, e := range v {
				walk(prefix, e)
			}
		}
	}
	for _, r := range p.Resources {
		if resource, ok := resources[r.Type]; ok {
			walk(resource, r.Inputs)
		}
	}
	return out
}

// unsentCase is one Optional and Computed attribute of a kind and the manifest field (a row's
// path) whose absence is checked; field is "" for a module constant, which no field sends.
type unsentCase struct {
	kind      kinds.Kind
	attribute string
	field     string
	row       effects.Row
	constant  string
}

// unsentCases are every kind's Optional and Computed attributes, each with the rows that send
// it, or with its own row's parent for an attribute inside a block (maintenance_policy.day).
func unsentCases(t *testing.T) []unsentCase {
	t.Helper()
	var out []unsentCase
	for _, k := range registry.Kinds() {
		names := make([]string, 0, len(k.Effects.Attributes))
		for name := range k.Effects.Attributes {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			a := k.Effects.Attributes[name]
			if !a.Optional || !a.Computed {
				continue
			}
			var rows []effects.Row
			for sent := name; sent != "" && len(rows) == 0; sent = parentAttribute(sent) {
				for _, row := range k.Effects.Rows {
					if row.Attribute == sent {
						rows = append(rows, row)
					}
				}
			}
			switch {
			case len(rows) > 0:
				for _, row := range rows {
					out = append(out, unsentCase{kind: k, attribute: name, field: row.Path, row: row})
				}
			case a.Constant != "":
				out = append(out, unsentCase{kind: k, attribute: name, constant: a.Constant})
			default:
				t.Errorf("%s: %s is Optional and Computed, and no row sends it nor is it a module constant", k.Name, name)
			}
		}
	}
	return out
}

// parentAttribute is the block an attribute is inside ("...maintenance_policy" of
// "...maintenance_policy.day"), "" for a top-level attribute ("resource.attribute").
func parentAttribute(name string) string {
	if strings.Count(name, ".") < 2 {
		return ""
	}
	return name[:strings.LastIndex(name, ".")]
}

// An Optional and Computed attribute that the module stops sending keeps the value the resource
// has (../shared/design/api.md, pitfalls). So for each one, a manifest without the field that
// sends it must either still send it (the module's default) or have diff say that removing the
// field changes nothing (the row's Removed), and not both; a module constant must always be sent.
func TestEveryOptionalComputedAttributeIsSentWithoutItsFieldOrItsRowSaysWhatRemovingItDoes(t *testing.T) {
	cases := unsentCases(t)
	if len(cases) == 0 {
		t.Fatal("no kind has an Optional and Computed attribute: the effects tables' facts are missing")
	}
	for _, c := range cases {
		name := c.kind.Name + "/" + c.attribute
		if c.field != "" {
			name += "/" + c.field
		}
		t.Run(name, func(t *testing.T) {
			in := minimalStackInput(t, c.kind)
			// A field the manifest's rules require cannot be removed: the minimal manifest sets it.
			required := false
			if c.field != "" {
				unset := proto.Clone(in)
				if clearField(unset, c.field) && validation.Validate(unset) != nil {
					required = true
				} else {
					in = unset
				}
			}
			// Not a preview: the mocks answer ids, so that every input is known, down to the fields of a
			// block built from another resource's output.
			p, err := mockrun.Run(func(ctx *pulumi.Context) error { return c.kind.Resources(ctx, in) }, mockrun.Options{})
			if err != nil {
				t.Fatalf("%s: the module fails on the minimal manifest without %s: %v", c.kind.Name, c.field, err)
			}
			value, sent := sentAttributes(p)[c.attribute]
			kept := c.row.Removed != nil && c.row.Removed.Refusal == effects.Kept
			switch {
			case sent && kept:
				t.Errorf("%s: %s's row says removing it keeps the value the resource has, but a manifest without it sends %s "+
					"as %s: removing it changes the resource, and diff says otherwise", c.kind.Name, c.field, c.attribute, moduletest.JSON(value))
			case sent && required:
				t.Logf("sent as %s, which the manifest requires", c.field)
			case sent:
				t.Logf("sent without %s as %s", c.field, moduletest.JSON(value))
			case c.field == "":
				t.Errorf("%s: %s is Optional and Computed and said to be a module constant (%s), but the minimal manifest "+
					"does not send it: the provider keeps whatever value the resource has", c.kind.Name, c.attribute, c.constant)
			case required:
				t.Errorf("%s: %s is sent as %s, which the manifest requires, yet the minimal manifest, which sets it, does not send it",
					c.kind.Name, c.attribute, c.field)
			case c.row.Removed != nil:
				t.Logf("not sent without %s; removing it is %s (%s)", c.field, c.row.Removed.Effect, c.row.Removed.Refusal)
			default:
				t.Errorf("%s: %s is Optional and Computed, and a manifest without %s does not send it, so removing %s keeps "+
					"the value the resource has; yet the row has no Removed, so diff says removing it is %s. Send a default "+
					"when the field is absent, or set the row's Removed to say removing it changes nothing",
					c.kind.Name, c.attribute, c.field, c.field, c.row.Effect)
			}
		})
	}
}
