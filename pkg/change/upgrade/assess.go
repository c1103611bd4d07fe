// Package upgrade assesses Kubernetes minor upgrades of the clusters of manifests, for the
// command upgrade plan: the path from each running version to the manifest's, one minor release
// at a time as the clouds allow; the cluster's objects that use APIs removed on the way
// (RemovedAPIs, checked through the cluster's kubeconfig read from the cloud and kept in memory);
// the cloud's own checks (DigitalOcean's clusterlint); and the order across a fleet,
// non-production environments first. It decides; printing and exit codes are the caller's.
package upgrade

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// GoalAnnotation, in a manifest's metadata.annotations, keeps the version an upgrade is headed
// for while the manifest's version field walks the path one step at a time (Write sets both).
// Annotations are for tools: the modules send nothing of them to the cloud.
const GoalAnnotation = "clusterplane.dev/upgrade-to"

// Cluster is one cluster manifest to plan for.
type Cluster struct {
	// File is the manifest's file; Kind its kind; Name and Env its metadata.
	File, Kind, Name, Env string
	// ClusterName and Region find the live cluster; Version is the manifest's version field and
	// Goal the GoalAnnotation ("" when unset).
	ClusterName, Region, Version, Goal string
	// ID is the cluster's id as its stack recorded it (the cluster_id output), "" when no stack
	// was read: the cluster is then found by its name. Note says why no stack was read, if it
	// matters.
	ID, Note string
	// Cloud asks the cluster's cloud; nil when the manifest's kind has no cloud to ask.
	Cloud Cloud
	// Window is the manifest's maintenance window (its cloud's default when it writes none), nil
	// for a cloud without them.
	Window *Window
}

// Target is the version the cluster is headed for: the goal annotation, else the version field.
func (c Cluster) Target() string {
	if c.Goal != "" {
		return c.Goal
	}
	return c.Version
}

// Assessment is what upgrade plan says of one cluster: its path, the removed APIs in use, the
// checks that block it. Not a saved plan (savedplan.Plan).
type Assessment struct {
	File    string `json:"file"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Env     string `json:"env,omitempty"`
	Cluster string `json:"cluster"`
	ID      string `json:"id,omitempty"`
	// FoundBy says how the cluster was found: "stack" (its stack's cluster_id) or "name".
	FoundBy string `json:"foundBy,omitempty"`
	Running string `json:"running,omitempty"`
	Target  string `json:"target"`
	Steps   []Step `json:"steps"`
	// Objects use APIs removed on the way; Budgets are the PodDisruptionBudgets that never allow
	// a disruption; Lint is the cloud's checks.
	Objects []Object     `json:"objects"`
	Budgets []Budget     `json:"budgets,omitempty"`
	Lint    []Diagnostic `json:"lint,omitempty"`
	// Blockers say what stops the upgrade; Notes what was not checked and why.
	Blockers []string `json:"blockers"`
	Notes    []string `json:"notes,omitempty"`
	// NextClear says that nothing of Blockers stops the first step: each stops a later one (an
	// API a later release removes is in use, or could not be checked), so --write takes the
	// first step while the plan still says what blocks the rest.
	NextClear bool `json:"nextClear"`
	// Unchecked is the blocker that says the removed APIs of a step could not be checked (the
	// cluster's API did not answer from here), "" when they were: upgrade apply lets it through
	// with --allow-unchecked-apis.
	Unchecked string `json:"unchecked,omitempty"`
}

// Blocked tells whether something stops the cluster's upgrade.
func (p Assessment) Blocked() bool { return len(p.Blockers) > 0 }

// Next is the version of the path's first step, "" when there is none.
func (p Assessment) Next() string {
	if len(p.Steps) == 0 {
		return ""
	}
	return p.Steps[0].To
}

// Assess assesses each cluster and returns the assessments in fleet order (Order). A failure to ask a
// cloud is the cluster's blocker, not the fleet's: the others are still planned.
func Assess(ctx context.Context, clusters []Cluster) []Assessment {
	out := make([]Assessment, 0, len(clusters))
	for _, c := range clusters {
		out = append(out, AssessOne(ctx, c))
	}
	return Order(out)
}

// Paths is Assess without the checks: what each cluster runs and its path, in fleet order, from
// two requests a cluster (its find and its offer) where Assess also scans the cluster's API and
// runs the cloud's lint. upgrade apply orders its waves from it, and assesses each cluster in full
// (AssessOne) when its turn comes, so a check made at the start would be made again anyway.
func Paths(ctx context.Context, clusters []Cluster) []Assessment {
	out := make([]Assessment, 0, len(clusters))
	for _, c := range clusters {
		out = append(out, assess(ctx, c, false))
	}
	return Order(out)
}

// AssessOne assesses one cluster, as Assess does each: upgrade apply asks again before each step,
// so that a step starts from what the cluster runs now and a blocker gained since stops it.
func AssessOne(ctx context.Context, c Cluster) Assessment { return assess(ctx, c, true) }

// assess is AssessOne, and with checks false Paths' assessment of one cluster.
func assess(ctx context.Context, c Cluster, checks bool) Assessment {
	p := Assessment{File: c.File, Kind: c.Kind, Name: c.Name, Env: c.Env, Cluster: c.ClusterName, Target: c.Target(),
		Steps: []Step{}, Objects: []Object{}, Blockers: []string{}}
	block := func(format string, args ...any) { p.Blockers = append(p.Blockers, fmt.Sprintf(format, args...)) }
	if c.Note != "" {
		p.Notes = append(p.Notes, c.Note)
	}
	if c.Cloud == nil {
		p.Notes = append(p.Notes, "no cloud to ask for this kind")
		return p
	}
	if p.Target == "" {
		p.Notes = append(p.Notes, "the manifest names no version: the cloud's default applies, nothing to plan")
		return p
	}
	live, found, err := c.Cloud.Find(ctx, c.ID, c.ClusterName, c.Region)
	if err != nil {
		block("%v", err)
		return p
	}
	p.FoundBy = "name"
	if c.ID != "" && live.ID == c.ID {
		p.FoundBy = "stack"
	}
	if !found {
		p.Notes = append(p.Notes, fmt.Sprintf("no cluster %s in %s yet: up creates it at %s", c.ClusterName, c.Region, c.Version))
		return p
	}
	p.ID, p.Running = live.ID, live.Version
	offer, err := c.Cloud.Offer(ctx, live)
	if err != nil {
		block("%v", err)
		return p
	}
	steps, blockers := Path(live.Version, p.Target, offer)
	p.Steps = append(p.Steps, steps...)
	p.Blockers = append(p.Blockers, blockers...)
	if len(steps) == 0 || !checks {
		return p
	}
	// The blockers so far (the path's) stop every step; a removed API's stops the steps from the
	// release that removes it, so not a first step that removes none (a patch release).
	whole := len(p.Blockers)
	// The cluster's API, asked for once (its kubeconfig read from the cloud) by both checks.
	objects := sync.OnceValues(func() (Lister, error) { return c.Cloud.Objects(ctx, live) })
	if p.checkRemoved(ctx, objects, live, steps) {
		whole = len(p.Blockers)
	}
	whole += p.checkBudgets(ctx, objects)
	if lint, err := c.Cloud.Lint(ctx, live); err != nil {
		block("%v", err)
		whole++
	} else {
		p.Lint = lint
		for _, d := range lint {
			if d.Severity == "error" {
				block("clusterlint %s: %s %s", d.Check, d.Object, d.Message)
				whole++
			}
		}
	}
	p.NextClear = whole == 0
	return p
}

// releases names the releases that remove the APIs of removed, each once: "1.32" or "1.32 and 1.33".
func releases(removed []Removed) string {
	var in []string
	for _, r := range removed {
		if !slices.Contains(in, r.In) {
			in = append(in, r.In)
		}
	}
	if len(in) > 1 {
		return strings.Join(in[:len(in)-1], ", ") + " and " + in[len(in)-1]
	}
	return strings.Join(in, "")
}

// checkRemoved scans the cluster for the objects that use an API the steps remove, each one (and
// a scan that could not be made) a blocker of the plan. It tells whether those blockers stop the
// first step too: they do when the first step itself removes APIs.
func (p *Assessment) checkRemoved(ctx context.Context, objects func() (Lister, error), live Live, steps []Step) bool {
	var removed []Removed
	for _, s := range steps {
		removed = append(removed, s.Removes...)
	}
	if strings.HasPrefix(live.Version, "talos") {
		// Talos versions name Talos, not the Kubernetes it runs.
		p.Notes = append(p.Notes, "a Talos version names Talos, not Kubernetes: removed APIs not checked")
		return false
	}
	if len(removed) == 0 {
		return false
	}
	list, err := objects()
	if err == nil {
		var notes []string
		p.Objects, notes, err = FindRemoved(ctx, list, removed)
		p.Notes = append(p.Notes, notes...)
	}
	if err != nil {
		p.Unchecked = fmt.Sprintf("the APIs %s removes could not be checked: %v", releases(removed), err)
		p.Blockers = append(p.Blockers, p.Unchecked)
	}
	if p.Objects == nil {
		p.Objects = []Object{}
	}
	for _, o := range p.Objects {
		p.Blockers = append(p.Blockers, fmt.Sprintf("%s %s uses %s, removed in %s%s", o.Kind, o.Ref(), o.APIVersion, o.RemovedIn, use(o.Use)))
	}
	return len(steps[0].Removes) > 0
}

func use(v string) string {
	if v == "" {
		return " (no successor)"
	}
	return ": use " + v
}

// envRank is where an environment goes in a fleet's order: development first (dev, sandbox),
// then test (test, qa, ci), then staging (staging, stage, preprod, uat), then any other or none,
// and production (prod, production, prd, live) last. The words are read between - _ and dots.
func envRank(env string) int {
	rank := 3
	for _, word := range strings.FieldsFunc(strings.ToLower(env), func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		switch word {
		case "prod", "production", "prd", "live":
			return 4
		case "dev", "development", "sandbox", "local":
			rank = min(rank, 0)
		case "test", "testing", "qa", "ci":
			rank = min(rank, 1)
		case "staging", "stage", "stg", "preprod", "uat":
			rank = min(rank, 2)
		}
	}
	return rank
}

// Order sorts plans across a fleet: non-production environments first (envRank), production
// last, so that an upgrade meets its problems where they cost least; within a rank, by environment, then by
// running version (the oldest furthest to go), then by name. Stable, so equal plans keep the
// files' order.
func Order(plans []Assessment) []Assessment {
	out := append([]Assessment(nil), plans...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := envRank(a.Env), envRank(b.Env); ra != rb {
			return ra < rb
		}
		if a.Env != b.Env {
			return a.Env < b.Env
		}
		if less, ok := kubeversion.Less(a.Running, b.Running); ok && a.Running != b.Running {
			return less
		}
		return a.Name < b.Name
	})
	return out
}
