package program

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/cost"
	"github.com/clusterplane/clusterplane/pkg/protofield"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/clusterplane/clusterplane/pkg/upgrade"
	"google.golang.org/protobuf/proto"
)

// offered holds the catalogues read from the clouds, once per process for each cloud, API URL
// and token: a fleet of a hundred manifests makes one call per cloud, not a hundred.
var offered = struct {
	sync.Mutex
	found map[string]offeredResult
}{found: map[string]offeredResult{}}

type offeredResult struct {
	catalogue upgrade.Catalogue
	err       error
}

// Offered is what cloud (cost.DigitalOcean or cost.Civo) offers now, read from its API at base
// (the cloud's own when "") with token: DigitalOcean's versions and sizes, Civo's versions. A
// failed read is remembered as well, so that it is said once.
func Offered(ctx context.Context, cloud, base, token string) (upgrade.Catalogue, error) {
	// Keyed by where the catalogue comes from; a token counts only as its digest.
	digest := sha256.Sum256([]byte(token))
	key := fmt.Sprintf("%s %x %s", cloud, digest[:8], base)
	offered.Lock()
	defer offered.Unlock()
	if r, ok := offered.found[key]; ok {
		return r.catalogue, r.err
	}
	var r offeredResult
	switch cloud {
	case cost.DigitalOcean:
		r.catalogue, r.err = upgrade.NewDigitalOcean(base, token).Catalogue(ctx)
	case cost.Civo:
		r.catalogue, r.err = upgrade.NewCivo(base, token, "").Catalogue(ctx)
	default:
		r.err = fmt.Errorf("no catalogue of %q", cloud)
	}
	offered.found[key] = r
	return r.catalogue, r.err
}

// CloudAPI is where input's cloud is asked what it offers: the cloud, and the API URL and token
// its provider config or the environment give (provider.Resolve decides, as for the deploy
// itself). token is "" when there is none, or when the manifest is of no cloud.
func CloudAPI(input proto.Message) (cloud, base, token string) {
	var p provider.Cloud
	switch cloud = cost.CloudOf(input); cloud {
	case cost.DigitalOcean:
		p = provider.DigitalOcean
	case cost.Civo:
		p = provider.Civo
	default:
		return "", "", ""
	}
	pc := protofield.Message(input.ProtoReflect(), "provider_config")
	token, base, err := p.Resolve(protofield.String(pc, "apiToken"), protofield.String(pc, "apiUrl"))
	if err != nil {
		// The manifest's validation refuses the same provider config; nothing is asked.
		return cloud, "", ""
	}
	return cloud, base, token
}

// cloudNames are the clouds as a refusal names them.
var cloudNames = map[string]string{cost.DigitalOcean: provider.DigitalOcean.Name, cost.Civo: provider.Civo.Name}

// Refusals are the problems of the fields of data (a manifest or stack input, parsed into input)
// that cat, what the cloud offers now, does not list: the Kubernetes version (a minor line by its
// minor; for Civo among its distribution's versions, deprecated ones not offered) and, when cat
// lists sizes, each node pool's size. Each names the field where the file writes it and what the
// cloud offers instead. A value old (the manifest the stack last deployed; nil when none) has at
// the same field is never refused: the cloud keeps running what it runs, even a version it no
// longer gives new clusters.
func Refusals(file string, data []byte, input, old proto.Message, cat upgrade.Catalogue) []stackinput.Problem {
	mc := catalogueOf(input)
	if mc.cloud == "" {
		return nil
	}
	var before manifestCatalogue
	if old != nil {
		before = catalogueOf(old)
	}
	name := cloudNames[mc.cloud]
	var out []stackinput.Problem
	if v := mc.version; v != nil && !(before.version != nil && before.version.value == v.value) {
		var versions []string
		for _, o := range cat.Versions {
			if !o.Deprecated && (mc.distribution == "" || o.Distribution == "" || o.Distribution == mc.distribution) {
				versions = append(versions, o.Version)
			}
		}
		if !versionOffered(v.value, versions) {
			p, _ := at(file, data, input, *v)
			what, instead := versionWords(v.value, versions)
			if len(versions) == 0 {
				instead = "it lists none"
			}
			p.RuleID, p.Message = "catalogue.version", fmt.Sprintf("%s is not offered by %s now: %s", what, name, sentence(instead))
			p.Hint = fmt.Sprintf("its API lists %s; a version it does not offer cannot be deployed", listed(versions))
			out = append(out, p)
		}
	}
	if cat.Sizes != nil {
		for _, s := range mc.sizes {
			if slices.Contains(cat.Sizes, s.value) || slices.ContainsFunc(before.sizes, func(b catalogueField) bool { return b == s }) {
				continue
			}
			p, _ := at(file, data, input, s)
			p.RuleID, p.Message = "catalogue.size", fmt.Sprintf("size %q is not offered by %s now", s.value, name)
			if near := closest(s.value, cat.Sizes, 1); near != "" {
				p.Message += ": did you mean " + near + "?"
			}
			p.Hint = fmt.Sprintf("its API lists %s; a size it does not offer cannot be deployed", listed(cat.Sizes))
			out = append(out, p)
		}
	}
	return out
}

// listed is a list for a hint: every item up to a dozen, then how many more.
func listed(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	if len(items) > 12 {
		return strings.Join(items[:12], ", ") + fmt.Sprintf(" and %d more", len(items)-12)
	}
	return strings.Join(items, ", ")
}
