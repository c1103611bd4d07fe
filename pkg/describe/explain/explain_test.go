package explain_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/describe/explain"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
)

func TestFindAcceptsCamelCaseSnakeCaseAndListIndexes(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	for _, query := range []string{
		"DigitalOceanKubernetesNodePool.spec.taints.effect",
		"DigitalOceanKubernetesNodePool.spec.taints[2].effect",
	} {
		target, err := e.Find(query)
		if err != nil {
			t.Fatalf("Find(%s): %v", query, err)
		}
		if got := target.Path(); got != "spec.taints.effect" {
			t.Errorf("Find(%s).Path() = %q", query, got)
		}
	}
	target, err := e.Find("CivoKubernetesClusterStackInput.provider_config.api_token")
	if err != nil || target.Path() != "providerConfig.apiToken" {
		t.Fatalf("Find of snake_case names = %v, %v", target, err)
	}
	var out bytes.Buffer
	if err := target.Write(&out, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"KIND:     CivoKubernetesClusterStackInput\n", "VERSION:  civo.clusterplane.dev/v1\n",
		"FIELD:    providerConfig.apiToken <string>\n", "CIVO_TOKEN", "DEFAULT:\n    \"\" (empty)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explain of the API token lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCompleteExtendsAQueryByOneStep(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	// A kind's name completes to every kind of the list that begins with it, and their stack
	// inputs: a kind added later whose name extends this one's is among them.
	var pools []string
	for _, k := range registry.Kinds() {
		if strings.HasPrefix(k.Name, "DigitalOceanKubernetesNodePool") {
			pools = append(pools, k.Name, k.Name+"StackInput")
		}
	}
	slices.Sort(pools)
	tests := []struct {
		prefix string
		want   []string
	}{
		{"DigitalOceanKubernetesNodePool", pools},
		{"CivoKubernetesNodePool.", []string{"CivoKubernetesNodePool.apiVersion", "CivoKubernetesNodePool.kind",
			"CivoKubernetesNodePool.metadata", "CivoKubernetesNodePool.spec", "CivoKubernetesNodePool.status"}},
		{"CivoKubernetesNodePool.spec.m", []string{"CivoKubernetesNodePool.spec.minNodes", "CivoKubernetesNodePool.spec.maxNodes"}},
		{"CivoKubernetesNodePool.spec.size.", nil},
		{"Nope.spec", nil},
	}
	for _, tt := range tests {
		if got := e.Complete(tt.prefix); !slices.Equal(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.prefix, got, tt.want)
		}
	}
}

func TestEveryOutputTheRecursiveListingShowsIsAFieldPathAReferenceAccepts(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	target, err := e.Find("DigitalOceanKubernetesCluster")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := target.Write(&out, true); err != nil {
		t.Fatal(err)
	}
	listing := out.String()
	outputs := listing[strings.Index(listing, "outputs"):]
	var names []string
	for _, line := range strings.Split(outputs, "\n")[1:] {
		if fields := strings.Fields(line); len(fields) == 2 && strings.HasPrefix(line, "      ") {
			names = append(names, fields[0])
		}
	}
	if len(names) < 8 {
		t.Fatalf("the listing shows outputs %v, want the eight of the kind:\n%s", names, listing)
	}
	for _, name := range names {
		if name == "kubeconfig" {
			continue // a secret: no reference may read it
		}
		pool := &dopool.DigitalOceanKubernetesNodePool{
			ApiVersion: "digitalocean.clusterplane.dev/v1", Kind: "DigitalOceanKubernetesNodePool",
			Metadata: &sharedv1.CloudResourceMetadata{Name: "workers"},
			Spec: &dopool.DigitalOceanKubernetesNodePoolSpec{NodePoolName: "workers", Size: "s-2vcpu-4gb", NodeCount: 1,
				Cluster: sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod",
					FieldPath: "status.outputs." + name})},
		}
		if err := validation.Validate(pool); err != nil {
			t.Errorf("fieldPath status.outputs.%s, as explain lists it, is refused: %v", name, err)
		}
	}
}

func TestExplainNamesFieldsTheWayAManifestWritesThem(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	tests := []struct {
		query string
		// want are the manifest's spellings the explanation uses; notWant the proto's.
		want, notWant []string
	}{
		{"DigitalOceanKubernetesCluster.spec.kubernetesVersion", []string{"autoUpgrade", "kubernetesVersion must be"},
			[]string{"auto_upgrade", "kubernetes_version"}},
		{"DigitalOceanKubernetesCluster.spec", []string{"defaultNodePool"}, []string{"default_node_pool"}},
		// Stack outputs keep the names the stacks export, which a reference's fieldPath reads.
		{"DigitalOceanKubernetesCluster.status.outputs", []string{"cluster_id"}, []string{"clusterId "}},
		// validate demands a reference's kind through the referencing field's rule.
		{"DigitalOceanKubernetesNodePool.spec.cluster.valueFrom", []string{"kind       <string> -required-"}, nil},
		{"CivoKubernetesNodePool.spec.cluster.valueFrom.kind", []string{"RULES:\n    - required: every reference names the kind",
			"none: a manifest must set it"}, []string{`"" (empty)`}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			target, err := e.Find(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := target.Write(&out, false); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the explanation lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("the explanation says %q, a name no manifest writes:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestAnUnknownKindIsQuotedShortInTheError(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	_, err := e.Find(strings.Repeat("K", 10000) + "\x1b[2J.spec")
	if err == nil {
		t.Fatal("Find of an unknown kind gave no error")
	}
	if len(err.Error()) > 1000 || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("the error echoes the kind unbounded or raw (%d bytes): %.200q", len(err.Error()), err.Error())
	}
}

func TestAFieldARuleRequiresUnlessAnotherIsTrueShowsItsRealRangeAndDefault(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	tests := []struct {
		query string
		// rules and def are the field's RULES and DEFAULT.
		rules []string
		def   string
	}{
		{"DigitalOceanKubernetesCluster.spec.defaultNodePool.nodeCount",
			[]string{"from 1 to 5000, or 0 when autoScale is true", "nodeCount must be between minNodes and maxNodes when autoScale is true"},
			"none unless autoScale is true: a manifest must set it, 0 is refused; with autoScale true it may be left out (0)"},
		{"DigitalOceanKubernetesNodePool.spec.nodeCount",
			[]string{"from 1 to 4999, or 0 when autoScale is true", "nodeCount must be between minNodes and maxNodes when autoScale is true"},
			"none unless autoScale is true: a manifest must set it, 0 is refused; with autoScale true it may be left out (0)"},
		// A bound of 1 of its own is said as it is.
		{"CivoKubernetesNodePool.spec.nodeCount", []string{"from 1 to 4999"}, "none: a manifest must set it"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			topic, err := e.Find(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			d, err := topic.Doc(false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Rules, tt.rules) || d.Default != tt.def {
				t.Errorf("rules %q, default %q\nwant %q, %q", d.Rules, d.Default, tt.rules, tt.def)
			}
		})
	}
}

func TestAMisspeltFieldOrKindIsAnsweredWithTheOneMeant(t *testing.T) {
	e := explain.New(registry.Kinds().Table, registry.Kinds().StackInputs()...)
	tests := []struct{ query, says string }{
		{"DigitalOceanKubernetesCluster.spec.defaultNodePool.nodeCont",
			`no field "nodeCont" in DigitalOceanKubernetesCluster.spec.defaultNodePool; did you mean nodeCount? Its fields are: nodePoolName,`},
		{"DigitalOceanKubernetesCluster.spec.defaultnodepool.size", "did you mean defaultNodePool? Its fields are:"},
		{"CivoKubernetesClustr.spec", `unknown kind "CivoKubernetesClustr"; did you mean CivoKubernetesCluster? One of:`},
		{"DigitalOceanKubernetesCluster.spec.zzzzzzzzzzzz", `no field "zzzzzzzzzzzz" in DigitalOceanKubernetesCluster.spec; its fields are: clusterName,`},
	}
	for _, tt := range tests {
		if _, err := e.Find(tt.query); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("Find(%s) = %v, want an error saying %q", tt.query, err, tt.says)
		}
	}
}
