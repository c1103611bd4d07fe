package fielddrift

import (
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// sizing are the manifest fields (their last name) that say how many nodes a stack runs and what
// they cost: a pool's count, size and autoscaling bounds, and a cluster's high availability.
var sizing = map[string]bool{kindfield.SpecNodeCount: true, kindfield.SpecSize: true, kindfield.SpecAutoScale: true,
	kindfield.SpecMinNodes: true, kindfield.SpecMaxNodes: true, kindfield.SpecHighlyAvailable: true}

// Recorded is the manifest as the stack last saw the cloud run it: the manifest its last up
// deployed (t's own when it recorded none), with the node counts, sizes and autoscaling bounds
// its state holds for them, which the last up or refresh read from the cloud. A pool scaled in
// the console and refreshed since, or a manifest edited since its last up, then differs from t's.
// Nil when the stack holds no resource: nothing runs that status could count.
func Recorded(t deploytarget.Target, st stackstate.State, outputs map[string]stackstate.Output) proto.Message {
	if len(st.Resources()) == 0 || t.Input == nil {
		return nil
	}
	base, err := t.DeployedInput(outputs)
	if err != nil || base == nil {
		// A manifest the stack did not record (an up killed before its outputs, an old release's
		// stack) or cannot be read: the state's figures still say what the cloud runs.
		base = t.Input
	}
	if t.Effects == nil {
		return base
	}
	var read []outcome.FieldDrift
	for _, row := range t.Effects.Rows {
		name := row.Path[strings.LastIndexByte(row.Path, '.')+1:]
		if !sizing[name] || row.Attribute == "" {
			continue
		}
		if v := stateValue(t.Effects, st, row); v != nil {
			read = append(read, outcome.FieldDrift{Field: row.Path, Live: v})
		}
	}
	return WithValues(base, read)
}

// stateValue is what the stack's state holds for the row's property: as its provider last read
// it from the cloud (the resource's outputs, under the name it files the live value under where
// that differs: effects.Table.ReadBack), else as last sent (its inputs). Nil when the stack holds
// no single resource the row sends to (none, or two during a pool's rotation: the count of either
// is not the stack's), or the property is not there.
func stateValue(table *effects.Table, st stackstate.State, row effects.Row) any {
	token := table.Types[row.Resource]
	var held []int
	for i, r := range st.Deployment.Resources {
		if string(r.Type) == token && !r.Delete {
			held = append(held, i)
		}
	}
	if len(held) != 1 {
		return nil
	}
	r := st.Deployment.Resources[held[0]]
	property := pulumiName(row.Attribute)
	// The name is made from the row's attribute; the table says whether it is the property the
	// row sends, so that a name it gets wrong reads nothing rather than another property.
	if !slices.Contains(table.Fields(token, property), row.Path) {
		return nil
	}
	v := ValueAt(r.Outputs, property)
	if alias, ok := table.ReadBack[property]; ok && zero(v) {
		if live := ValueAt(r.Outputs, alias); live != nil {
			v = live
		}
	}
	if v == nil {
		v = ValueAt(r.Inputs, property)
	}
	return v
}

// pulumiName is a row's attribute as the engine names the property: the Terraform resource's
// name dropped, each snake_case part in camelCase ("digitalocean_kubernetes_cluster.node_pool.
// node_count" is "nodePool.nodeCount").
func pulumiName(attribute string) string {
	_, path, _ := strings.Cut(attribute, ".")
	parts := strings.Split(path, ".")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j := 1; j < len(words); j++ {
			if words[j] != "" {
				words[j] = strings.ToUpper(words[j][:1]) + words[j][1:]
			}
		}
		parts[i] = strings.Join(words, "")
	}
	return strings.Join(parts, ".")
}

// zero tells a value a provider records for a property it did not set: none, or 0.
func zero(v any) bool {
	n, isNumber := v.(float64)
	return v == nil || isNumber && n == 0
}

// Read is recorded (Recorded's manifest) with the node counts, sizes and autoscaling bounds a read
// of the cloud found differing (fields, the drift a preview against the cloud found): what the
// cloud runs now, as status --drift counts its nodes and prices it.
func Read(recorded proto.Message, fields []outcome.FieldDrift) proto.Message {
	if recorded == nil {
		return nil
	}
	var read []outcome.FieldDrift
	for _, f := range fields {
		if sizing[f.Field[strings.LastIndexByte(f.Field, '.')+1:]] {
			read = append(read, f)
		}
	}
	return WithValues(recorded, read)
}
