package deploy

import (
	"context"
	"reflect"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/effects"
)

// Disagreement is a manifest field whose value differs from the live resource's.
type Disagreement struct {
	// Field is the manifest path, e.g. "spec.defaultNodePool.nodeCount".
	Field string `json:"field"`
	// Manifest and Live are both values; secrets read "[secret]".
	Manifest any `json:"manifest"`
	Live     any `json:"live"`
}

// Adopt brings the cloud's cluster or node pool with id under the target's stack with Pulumi's
// import: the target's module is deployed with the existing resource instead of a new one. When
// the manifest disagrees with the live resource it changes nothing and lists each differing
// field (Blocked); the stack is left as it was (and removed when Adopt made it).
func (d *Deployer) Adopt(ctx context.Context, t Target, id string) (out Outcome) {
	defer stamp(&out, t, time.Now())
	table := t.Effects
	if table == nil {
		return failed(errors.Errorf("no effects are known for kind %q", t.Kind))
	}
	typ := table.Types[effects.Cluster]
	if typ == "" {
		typ = table.Types[effects.NodePool]
	}
	s, created, err := d.openOrCreate(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	// Every registration of the adopted type imports the resource with this id.
	importing := func(_ context.Context, args *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
		if args.Type != typ {
			return nil
		}
		args.Opts.Import = pulumi.ID(id)
		return &pulumi.ResourceTransformResult{Props: args.Props, Opts: args.Opts}
	}
	res, previewErr := s.Preview(ctx, Options{Progress: d.progress(t), Transform: importing})
	if found := disagreements(table, typ, res.Steps); len(found) > 0 {
		forget(ctx, s, created)
		return Outcome{Status: Blocked, Reason: "not adopted: the manifest disagrees with " + typ + " " + id,
			Disagreements: found, Result: &res}
	}
	if previewErr != nil {
		forget(ctx, s, created)
		return failed(previewErr)
	}
	up, err := s.Up(ctx, Options{Progress: d.progress(t), Transform: importing})
	if err != nil {
		return failed(err)
	}
	return Outcome{Status: Done, Result: &up, Reason: "adopted " + typ + " " + id + " into " + t.Key()}
}

// disagreements are the manifest fields an adoption's preview would change on the imported
// resource of type typ: the engine imports the live resource, then plans an update (or
// replacement) for whatever the manifest says otherwise. A property the provider does not read
// back on import (live unknown) is no disagreement: the manifest's value is what the state takes;
// one it reads back as an output, or under another name (a DigitalOcean pool's count, as
// actualNodeCount), is compared there.
func disagreements(table *effects.Table, typ string, steps []Step) []Disagreement {
	seen := map[string]bool{}
	var out []Disagreement
	for _, step := range steps {
		if step.Type != typ || isOp(step, apitype.OpImport, apitype.OpSame, apitype.OpRead) {
			continue
		}
		for _, path := range propertyPaths(step.Paths) {
			manifest, live := valueAt(step.New, path), valueAt(step.Old, path)
			if live == nil {
				// What the import read from the cloud: under the name the provider files it
				// under where it has one (its own name then holds a zero), else its own.
				if alias, ok := table.ReadBack[path]; ok {
					live = valueAt(step.Live, alias)
				} else {
					live = valueAt(step.Live, path)
				}
			}
			if live == nil || reflect.DeepEqual(numeric(manifest), numeric(live)) {
				continue
			}
			field := fieldsOf(table, typ, path)
			if seen[field] {
				continue
			}
			seen[field] = true
			out = append(out, Disagreement{Field: field, Manifest: manifest, Live: live})
		}
	}
	return out
}

// numeric reads JSON numbers as float64, so that 2 and 2.0 agree.
func numeric(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return v
}
