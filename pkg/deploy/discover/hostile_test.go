package discover

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
)

// ruleOfAName is validate's word on a cloud name the manifest's rules do not allow, at its field.
var ruleOfAName = regexp.MustCompile(`^discovered\.yaml:\d+:\d+: spec\.(clusterName|nodePoolName|defaultNodePool\.nodePoolName): must be`)

func TestACloudNameOfControlCharactersIsWrittenEscapedAndTheFileReadsBack(t *testing.T) {
	for _, name := range []string{
		"evil\x1b[31mred", "two\nlines", "carriage\rreturn", "a: b", "# not a comment", `quo"ted'`, "bidi\u202eevil",
		"nul\x00byte", "forged\n# clusterplane: ok\nkind: X",
	} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			cl := doBase()
			cl.Name = name
			cl.NodePools = append(cl.NodePools, doPool{ID: "p-2", Name: name + "-pool", Size: "s-1vcpu-2gb", Count: 1})
			ms, err := doManifests(cl, clusterNames([]discovered{{cl.ID, cl.Name, cl.Region}})[cl.ID])
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				data, err := render(m, Options{Kinds: registry.Kinds(), Command: "clusterplane discover digitalocean"})
				if err != nil {
					t.Fatal(err)
				}
				// No control character anywhere (YAML refuses them), nor one that reorders text in a
				// comment, where no quoting shows it.
				if i := strings.IndexFunc(string(data), func(r rune) bool { return r != '\n' && unicode.IsControl(r) }); i >= 0 {
					t.Errorf("the file holds the raw character %q:\n%s", string(data)[i:i+1], data)
				}
				for _, line := range strings.Split(string(data), "\n") {
					if strings.HasPrefix(line, "#") && strings.IndexFunc(line, hostile) >= 0 {
						t.Errorf("the comment line %q holds a raw character", line)
					}
				}
				var in proto.Message = &doclusterv1.DigitalOceanKubernetesClusterStackInput{}
				if m.pool {
					in = &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{}
				}
				// The file is YAML that says the cloud's name as it is; a name the manifest's rules do
				// not allow is then said by validate as any broken rule is, at its field.
				var doc struct {
					Spec struct {
						ClusterName  string `yaml:"clusterName"`
						NodePoolName string `yaml:"nodePoolName"`
					} `yaml:"spec"`
				}
				if err := yaml.Unmarshal(data, &doc); err != nil {
					t.Fatalf("the written file is not YAML: %v\n%s", err, data)
				}
				if got := doc.Spec.ClusterName + doc.Spec.NodePoolName; got != name && got != name+"-pool" {
					t.Errorf("the file says the name %q, want the cloud's %q", got, name)
				}
				if err := stackinput.Parse(data, "discovered.yaml", in); err != nil && !ruleOfAName.MatchString(err.Error()) {
					t.Errorf("the written file does not read back but for a rule of a field: %v\n%s", err, data)
				}
			}
		})
	}
}

func TestPrintableEscapesWhatWouldActOnATerminal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"web", "web"},
		{"évé-ñ", "évé-ñ"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"line\nforged", `line\x0aforged`},
		{"\u202egnp.exe", `\u202egnp.exe`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b", `c1\x9b`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Promise: discover-names-stable
func TestDiscoveredClustersGetNamesOfTheirOwnWhateverOrderTheCloudListsThem(t *testing.T) {
	for _, tc := range []struct {
		name     string
		clusters []discovered
		want     map[string]string
	}{
		{"a region suffix that meets another cluster's own name", []discovered{
			{"1", "dup", "fra1"}, {"2", "dup", "lon1"}, {"3", "dup-fra1", "lon1"}},
			map[string]string{"1": "dup-fra1-2", "2": "dup-lon1", "3": "dup-fra1"}},
		{"two names that become one manifest name", []discovered{{"a", "Web_App", "fra1"}, {"b", "web-app", "lon1"}},
			map[string]string{"a": "web-app", "b": "web-app-2"}},
		{"three of one name in one region (DigitalOcean allows it)", []discovered{
			{"x", "api", "nyc1"}, {"y", "api", "nyc1"}, {"z", "api", "nyc1"}},
			map[string]string{"x": "api-nyc1", "y": "api-nyc1-2", "z": "api-nyc1-3"}},
		{"a long name keeps within 63 characters", []discovered{
			{"l1", strings.Repeat("a", 70), "fra1"}, {"l2", strings.Repeat("a", 63), "lon1"}},
			map[string]string{"l1": strings.Repeat("a", 61) + "-2", "l2": strings.Repeat("a", 63)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every order of the list gives the same names.
			for shift := range tc.clusters {
				list := append(append([]discovered{}, tc.clusters[shift:]...), tc.clusters[:shift]...)
				got := clusterNames(list)
				for id, want := range tc.want {
					if got[id] != want {
						t.Errorf("listed from %d: cluster %s is named %q, want %q (all: %v)", shift, id, got[id], want, got)
					}
				}
			}
		})
	}
}
