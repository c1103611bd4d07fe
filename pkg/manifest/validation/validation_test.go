package validation_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	pkgerrors "github.com/pkg/errors"
)

func TestErrorTextCountsTheViolationsAndListsOneIndentedLinePerViolation(t *testing.T) {
	tests := []struct {
		name       string
		violations []validation.Violation
		want       string
	}{
		{
			name: "two violations are counted in the plural and listed in the order given, paths as manifests write them",
			violations: []validation.Violation{
				{Field: "spec.cluster_name", RuleID: "string.min_len", Message: "value length must be at least 1 characters"},
				{Field: "spec.region", RuleID: "enum.not_in", Message: "value must not be in list [0]"},
			},
			want: "2 violations:\n" +
				"  spec.clusterName: value length must be at least 1 characters\n" +
				"  spec.region: value must not be in list [0]",
		},
		{
			name:       "one violation is counted in the singular",
			violations: []validation.Violation{{Field: "metadata.name", Message: "value is required"}},
			want:       "1 violation:\n  metadata.name: value is required",
		},
		{
			name:       "a violation of the whole message is labelled (message)",
			violations: []validation.Violation{{Message: "min_nodes must be set with auto_scale"}},
			want:       "1 violation:\n  (message): min_nodes must be set with auto_scale",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&validation.Error{Violations: tt.violations}).Error()
			if got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestValidateReportsEveryViolationSortedByFieldPath(t *testing.T) {
	// Four mistakes at once: no metadata name, an unspecified region, a bad version slug and no
	// default pool.
	manifest := &cluster.DigitalOceanKubernetesCluster{
		ApiVersion: "digitalocean.clusterplane.dev/v1",
		Kind:       "DigitalOceanKubernetesCluster",
		Metadata:   &sharedv1.CloudResourceMetadata{},
		Spec: &cluster.DigitalOceanKubernetesClusterSpec{
			ClusterName:       "dev-fra1",
			KubernetesVersion: "latest",
		},
	}
	err := validation.Validate(manifest)
	if err == nil {
		t.Fatal("Validate() = nil for a manifest with several mistakes")
	}
	violations := validation.Violations(err)
	fields := make([]string, len(violations))
	for i, v := range violations {
		fields[i] = v.Field
	}
	for _, want := range []string{"metadata.name", "spec.default_node_pool", "spec.kubernetes_version", "spec.region"} {
		if !slices.Contains(fields, want) {
			t.Errorf("violations %v do not include %s", fields, want)
		}
	}
	for i := 1; i < len(fields); i++ {
		if fields[i-1] > fields[i] {
			t.Errorf("violations are not sorted by field: %v", fields)
			break
		}
	}
	text := err.Error()
	if !strings.HasPrefix(text, fmt.Sprintf("%d violations:\n", len(violations))) {
		t.Errorf("Error() does not start with the count of %d violations:\n%s", len(violations), text)
	}
	lines := strings.Split(text, "\n")[1:]
	if len(lines) != len(violations) {
		t.Fatalf("Error() has %d violation lines, want %d:\n%s", len(lines), len(violations), text)
	}
	for i, v := range violations {
		if want := "  " + validation.Camel(v.Field) + ": " + v.Message; lines[i] != want {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want)
		}
	}
}

func TestValidateReturnsNilForAValidManifest(t *testing.T) {
	manifest := &cluster.DigitalOceanKubernetesCluster{
		ApiVersion: "digitalocean.clusterplane.dev/v1",
		Kind:       "DigitalOceanKubernetesCluster",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "dev-fra1"},
		Spec: &cluster.DigitalOceanKubernetesClusterSpec{
			ClusterName:       "dev-fra1",
			Region:            "fra1",
			KubernetesVersion: "1.31.1-do.5",
			DefaultNodePool:   &cluster.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 2},
		},
	}
	if err := validation.Validate(manifest); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
}

func TestViolationsReadsThroughWrappingAndIgnoresOtherErrors(t *testing.T) {
	verr := &validation.Error{Violations: []validation.Violation{{Field: "spec.size", Message: "value is required"}}}
	tests := []struct {
		name string
		err  error
		want []validation.Violation
	}{
		{"a validation error yields its violations", verr, verr.Violations},
		{"a validation error wrapped with pkg/errors yields its violations", pkgerrors.Wrap(verr, "examples/x.yaml"), verr.Violations},
		{"a validation error wrapped with fmt yields its violations", fmt.Errorf("load: %w", verr), verr.Violations},
		{"a plain error yields nil", errors.New("read stack input: no such file"), nil},
		{"a nil error yields nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := validation.Violations(tt.err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Violations() = %v, want %v", got, tt.want)
			}
		})
	}
}

// Promise: rules-said-in-words
func TestEveryPatternOfTheAPIHasWords(t *testing.T) {
	var missing []string
	err := filepath.WalkDir(filepath.Join("..", "..", "..", "apis"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".proto") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range protoPattern.FindAllStringSubmatch(string(data), -1) {
			// The proto text escapes backslashes once more than the rule holds them.
			if pattern := strings.ReplaceAll(m[1], `\\`, `\`); validation.PatternWords(pattern) == "" {
				missing = append(missing, path+": "+pattern)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("patterns without words:\n%s", strings.Join(missing, "\n"))
	}
}

var protoPattern = regexp.MustCompile(`pattern ?[:=] ?"([^"]*)"`)

func TestARuleRelatingFieldsIsPlacedAtTheFieldItsIdNamesInTheManifestsWords(t *testing.T) {
	manifest := &cluster.DigitalOceanKubernetesCluster{
		ApiVersion: "digitalocean.clusterplane.dev/v1",
		Kind:       "DigitalOceanKubernetesCluster",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "dev"},
		Spec: &cluster.DigitalOceanKubernetesClusterSpec{
			ClusterName: "dev", Region: "fra1", KubernetesVersion: "1.31.1-do.5",
			ClusterSubnet: "10.0.0.0/16", ServiceSubnet: "10.0.0.0/16",
			DefaultNodePool: &cluster.DigitalOceanKubernetesClusterDefaultNodePool{
				Size: "s-2vcpu-4gb", NodeCount: 9, AutoScale: true, MinNodes: 1, MaxNodes: 3,
			},
		},
	}
	got := map[string]string{}
	for _, v := range validation.Violations(validation.Validate(manifest)) {
		got[v.String()] = v.RuleID
	}
	for line, rule := range map[string]string{
		// Its id starts with node_count: the field's path, the other fields in camelCase.
		"spec.defaultNodePool.nodeCount: must be between minNodes and maxNodes when autoScale is true": "node_count.within_bounds",
		// subnets is no field: the rule stays on its message, still in the manifest's words.
		"spec: clusterSubnet and serviceSubnet must not overlap": "subnets.no_overlap",
	} {
		if got[line] != rule {
			t.Errorf("violations %v lack %q (%s)", got, line, rule)
		}
	}
}
