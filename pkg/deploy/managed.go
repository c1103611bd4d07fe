package deploy

import (
	"context"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
)

// Holds is what of the target's cloud resource (its kind's cluster or node pool type) the
// target's stack already holds, "type name", or "" when it holds none or does not exist. A stack
// that holds it was deployed (or adopted) already: adopting into it would take it over twice.
func Holds(ctx context.Context, b Backend, t Target) (string, error) {
	if t.Effects == nil {
		return "", nil
	}
	types := map[string]bool{}
	for _, part := range []effects.Role{effects.Cluster, effects.NodePool} {
		if typ := t.Effects.Types[part]; typ != "" {
			types[typ] = true
		}
	}
	s, err := b.Open(ctx, t.Project, t.Stack, nil)
	if errors.Is(err, ErrNotDeployed) {
		return "", nil
	}
	if err != nil {
		return "", errors.Wrapf(err, "open stack %s", t.Key())
	}
	defer s.Close()
	st, err := readState(ctx, s)
	if err != nil {
		return "", errors.Wrapf(err, "read stack %s", t.Key())
	}
	for _, r := range st.d.Resources {
		if types[string(r.Type)] && !r.Delete {
			return string(r.Type) + " " + r.URN.Name(), nil
		}
	}
	return "", nil
}
