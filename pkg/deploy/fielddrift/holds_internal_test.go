package fielddrift

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// A value the manifest already holds is set without the JSON round trip, with the same result.
func TestAFieldThatAlreadyHoldsTheValueIsLeftAsTheRoundTripWouldLeaveIt(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := stackinput.ReadHead(text)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := registry.Kinds().ByName(head.Kind)
	if !ok {
		t.Fatalf("no kind %s", head.Kind)
	}
	input := k.NewStackInput()
	if err := stackinput.Parse(text, "minimal.yaml", input); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		value any
		holds bool
	}{
		{"the same node count", "spec.defaultNodePool.nodeCount", float64(2), true},
		{"the same size", "spec.defaultNodePool.size", "s-2vcpu-4gb", true},
		{"another node count", "spec.defaultNodePool.nodeCount", float64(3), false},
		{"a count with a fraction", "spec.defaultNodePool.nodeCount", 2.5, false},
		{"a count as a string", "spec.defaultNodePool.nodeCount", "2", false},
		{"a count past what a float64 holds whole", "spec.defaultNodePool.nodeCount", float64(1 << 60), false},
		{"another size", "spec.defaultNodePool.size", "s-4vcpu-8gb", false},
		{"false where the manifest leaves a bool unset", "spec.defaultNodePool.autoScale", false, true},
		{"0 where the manifest leaves a count unset", "spec.defaultNodePool.minNodes", float64(0), true},
		{"true where the manifest leaves a bool unset", "spec.highlyAvailable", true, false},
		{"a count where the manifest leaves it unset", "spec.defaultNodePool.maxNodes", float64(3), false},
		{"a field under a message the manifest leaves unset", "spec.maintenanceWindow.startTime", "04:00", false},
		{"a field by its proto name", "spec.default_node_pool.node_count", float64(2), false},
		{"no such field", "spec.defaultNodePool.nodes", float64(2), false},
		{"a message, not a value", "spec.defaultNodePool", map[string]any{"nodeCount": float64(2)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := holds(input, tt.path, tt.value); got != tt.holds {
				t.Fatalf("holds: %v, want %v", got, tt.holds)
			}
			got, gotErr := withValue(input, tt.path, tt.value)
			want, wantErr := roundTrip(input, tt.path, tt.value)
			if (gotErr == nil) != (wantErr == nil) || gotErr == nil && !proto.Equal(got, want) {
				t.Errorf("withValue: %v (%v), the round trip: %v (%v)", got, gotErr, want, wantErr)
			}
		})
	}
}
