// Package operator is what the operator binary adds to Karpenter's: its options (flags and
// environment), the clouds a token is given for, and the provider's controllers.
package operator

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/karpenter/pkg/cloudprovider"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/utils/env"
)

// Options are the provider's own flags, each with an environment variable, beside Karpenter
// core's. The clouds' tokens are not flags: a flag shows in the process list, so they come from
// the environment alone (each cloud's token variable, its Driver's, set from a Secret by the
// chart).
type Options struct {
	// SizesMaxAge is how long a region's sizes and prices are kept.
	SizesMaxAge time.Duration
	// OrphanGrace is how long a marked node without a NodeClaim is left alone.
	OrphanGrace time.Duration
	// BatchWindow is how long a pool's first create waits for others to share its resize.
	BatchWindow time.Duration
}

// Karpenter's operator parses every registered Injectable's flags from one command line.
func init() {
	options.Injectables = append(options.Injectables, &Options{})
}

type optionsKey struct{}

// AddFlags declares the flags, and --help's header: the program and where its tokens come from,
// which no flag shows.
func (o *Options) AddFlags(fs *options.FlagSet) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHeader(clouds.Drivers()))
		fs.PrintDefaults()
	}
	fs.DurationVar(&o.SizesMaxAge, "sizes-max-age", env.WithDefaultDuration("SIZES_MAX_AGE", instancetype.DefaultMaxAge),
		"how long the clouds' sizes and prices are kept before being read again")
	fs.DurationVar(&o.OrphanGrace, "orphan-grace", env.WithDefaultDuration("ORPHAN_GRACE", cloudprovider.DefaultOrphanGrace),
		"how long a node of a marked pool with no NodeClaim is left before it is deleted")
	fs.DurationVar(&o.BatchWindow, "pool-batch-window", env.WithDefaultDuration("POOL_BATCH_WINDOW", time.Second),
		"how long a pool's first create waits for others to share its resize")
}

// Parse reads the flags.
func (o *Options) Parse(fs *options.FlagSet, args ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		return fmt.Errorf("parse the flags: %w", err)
	}
	if o.SizesMaxAge <= 0 || o.OrphanGrace <= 0 || o.BatchWindow < 0 {
		return errors.New("--sizes-max-age and --orphan-grace must be positive, --pool-batch-window not negative")
	}
	// Karpenter's options are parsed first (they are Injectables' first) from the same command
	// line. Only when fs carries Karpenter's flags: the provider's own tests give it only these.
	if fs.Lookup("leader-election-namespace") == nil {
		return nil
	}
	for _, inj := range options.Injectables {
		if core, ok := inj.(*options.Options); ok {
			return LeaderElection(core.DisableLeaderElection, core.LeaderElectionNamespace, InCluster())
		}
	}
	return nil
}

// usageHeader opens --help, naming the clouds and their variables: Karpenter names its flag set
// "karpenter".
func usageHeader(ds []clouds.Driver) string {
	var names, tokens, urls []string
	for _, d := range ds {
		names, tokens, urls = append(names, d.Name), append(tokens, d.Env.TokenEnv), append(urls, d.Env.URLEnv)
	}
	return fmt.Sprintf(`Usage of karpenter-clusterplane: Karpenter's operator with clusterplane's provider for
%s managed node pools.

The clouds' tokens come from the environment only, never from a flag: %s (one at
least; the chart sets them from a Secret). %s point the provider at another API. Out
of a cluster, give --leader-election-namespace (LEADER_ELECTION_NAMESPACE) or
--disable-leader-election (DISABLE_LEADER_ELECTION=true).

Flags:
`, strings.Join(names, ", "), strings.Join(tokens, ", "), strings.Join(urls, ", "))
}

// inClusterNamespace is the file a pod's service account mounts; controller-runtime reads the
// leader election's namespace from it when none is given.
const inClusterNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// InCluster tells whether the operator runs in a pod with a service account.
func InCluster() bool {
	_, err := os.Stat(inClusterNamespace)
	return err == nil
}

// LeaderElection is an error naming the settings to give when leader election is on, no
// namespace is given for its lease and none can be read from the pod (the operator runs out of a
// cluster): controller-runtime would otherwise stop the operator with a panic naming its own
// field, not the flag or variable a user sets.
func LeaderElection(disabled bool, namespace string, inCluster bool) error {
	if disabled || namespace != "" || inCluster {
		return nil
	}
	return errors.New("running out of a cluster with leader election on: give the lease's namespace with " +
		"--leader-election-namespace (LEADER_ELECTION_NAMESPACE), or run one replica with " +
		"--disable-leader-election (DISABLE_LEADER_ELECTION=true)")
}

// ToContext stores the options in ctx.
func (o *Options) ToContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, optionsKey{}, o)
}

// FromContext are the options ToContext stored.
func FromContext(ctx context.Context) *Options {
	o, _ := ctx.Value(optionsKey{}).(*Options)
	return o
}

// Clouds are the clouds getenv gives a token for, in the table's order, each at its API URL from
// getenv (its Driver's variable: the name clusterplane reads) or its own. None is an error: the
// operator would have nothing to do.
func Clouds(getenv func(string) string) ([]clouds.Cloud, error) {
	var out []clouds.Cloud
	var names []string
	for _, d := range clouds.Drivers() {
		names = append(names, d.Env.TokenEnv)
		if token := getenv(d.Env.TokenEnv); token != "" {
			out = append(out, d.New(getenv(d.Env.URLEnv), token))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("none of %s is set: the provider needs a token of at least one cloud", strings.Join(names, ", "))
	}
	return out, nil
}
