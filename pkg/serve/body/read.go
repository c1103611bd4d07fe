package body

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
)

// File names a body's manifest where a message names a file: there is none.
const File = "body"

// Read is the manifest a body deploys (Manifest), read into its target by its kind from ks as
// `clusterplane validate` reads a file. It is the one way a body becomes what the pipeline takes:
// the API checks a request with its result, hands that result on to its other checks and the
// policy, and the worker deploys the result of the same call on the stored row, so that no body
// is read two ways. A body no manifest can be made of is a *ProblemsError; a manifest its kind
// does not read is a *deploytarget.ProblemsError, as the pipeline says it (Problems names its
// fields as the body wrote them); an error of clusters comes back as it is.
func Read(ctx context.Context, ks kinds.List, b Body, pool bool, clusterID string, clusters Clusters) (deploytarget.Manifest, error) {
	var m deploytarget.Manifest
	data, err := Manifest(ctx, b, pool, clusterID, clusters)
	if err != nil {
		return m, err
	}
	name := KindName(b.Spec.Platform.Type, pool)
	k, ok := ks.ByName(name)
	if !ok {
		return m, errors.Errorf("no kind %s", name)
	}
	t, err := deploytarget.Read(k, File, data, "")
	if err != nil {
		return m, &deploytarget.ProblemsError{Problems: []error{err}}
	}
	return deploytarget.Manifest{Target: t, Data: data}, nil
}
