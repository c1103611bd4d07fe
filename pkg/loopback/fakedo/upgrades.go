package fakedo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/digitalocean/godo"
)

// upgrade moves a cluster to a later offered version, in its minor release or the next one: at
// once, or over the time SetUpgradeTime set (upgraderun.go). A cluster still upgrading takes no
// other upgrade.
func (d clusterAPI) upgrade(w http.ResponseWriter, id string, body []byte) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	var req godo.KubernetesClusterUpgradeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	if cl.upgrade != nil {
		d.invalid(w, "cluster is already upgrading")
		return
	}
	if msg := d.checkUpgrade(cl.c.VersionSlug, req.VersionSlug); msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	d.upgradeLog = append(d.upgradeLog, UpgradeRecord{ClusterID: id, ClusterName: cl.c.Name,
		From: cl.c.VersionSlug, To: req.VersionSlug, At: d.clockNow().UTC()})
	if d.upgradeTime > 0 {
		d.begin(cl, req.VersionSlug)
	} else {
		d.end(cl, cl.c.VersionSlug, req.VersionSlug)
	}
	w.WriteHeader(http.StatusAccepted)
}

// checkUpgrade reports, in the fake's wording, why from cannot be upgraded to to.
func (d clusterAPI) checkUpgrade(from, to string) string {
	if !slices.Contains(d.versions, to) {
		return fmt.Sprintf("invalid upgrade path: version %q is not available", to)
	}
	cur, okCur := parseVersion(from)
	next, okNext := parseVersion(to)
	switch {
	case !okCur || !okNext:
		return fmt.Sprintf("invalid upgrade path: from %s to %s", from, to)
	case !cur.less(next):
		return fmt.Sprintf("invalid upgrade path: %s is not later than %s", to, from)
	case next[0] != cur[0] || next[1] > cur[1]+1:
		return fmt.Sprintf("invalid upgrade path: %s skips a minor release after %s", to, from)
	}
	return ""
}

// upgrades are the versions checkUpgrade allows, oldest first.
func (d clusterAPI) upgrades(w http.ResponseWriter, id string) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	out := []*godo.KubernetesVersion{}
	for _, v := range d.account.sortedVersions() {
		if d.checkUpgrade(cl.c.VersionSlug, v) == "" {
			out = append(out, kubernetesVersion(v))
		}
	}
	slices.Reverse(out)
	writeJSON(w, http.StatusOK, map[string]any{"available_upgrade_versions": out})
}

// version is a slug such as 1.31.9-do.2 as numbers: major, minor, patch, DigitalOcean's revision.
type version [4]int

func parseVersion(slug string) (version, bool) {
	upstream, rev, ok := strings.Cut(slug, "-do.")
	parts := strings.Split(upstream, ".")
	if !ok || len(parts) != 3 {
		return version{}, false
	}
	var v version
	for i, s := range append(parts, rev) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return version{}, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) less(o version) bool { return slices.Compare(v[:], o[:]) < 0 }

// sortedVersions are the offered slugs, latest first, as DigitalOcean lists them; slugs that do
// not parse come last.
func (d Account) sortedVersions() []string {
	out := slices.Clone(d.versions)
	slices.SortStableFunc(out, func(a, b string) int {
		va, okA := parseVersion(a)
		vb, okB := parseVersion(b)
		switch {
		case okA && okB:
			return slices.Compare(vb[:], va[:])
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
	return out
}

func (d Account) latestVersion() string {
	if v := d.sortedVersions(); len(v) > 0 {
		return v[0]
	}
	return ""
}

func kubernetesVersion(slug string) *godo.KubernetesVersion {
	upstream, _, _ := strings.Cut(slug, "-do.")
	return &godo.KubernetesVersion{
		Slug:              slug,
		KubernetesVersion: upstream,
		// The fake's choice of features; DigitalOcean's list varies by release.
		SupportedFeatures: []string{"cluster-autoscaler", "docr-integration", "ha-control-plane", "token-authentication"},
	}
}
