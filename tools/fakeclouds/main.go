// Command fakeclouds serves the tests' loopback clouds (pkg/loopback/fakeclouds lists them, one
// per driver) on their own, for what runs outside a Go test: bench/deploy.sh. Its flags are each
// cloud's, by its ID (-<cloud>-token, -<cloud>-port, -<cloud>-state), and -token gives every cloud
// without a token of its own one, so that a script need not name each cloud. Sizes are priced as the
// repository's tables price them, and -examples puts into each new cloud what the examples name by
// id, as the sandbox does. It writes the environment that points the providers at them, then serves
// until it is stopped or fakecloud.Lifetime passes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
)

// server is the fakes' caller: it fails by exiting and cleans up on the way out.
type server struct{ cleanups []func() }

func (*server) Helper() {}

func (*server) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakeclouds: "+format+"\n", args...)
	os.Exit(1)
}

func (s *server) Cleanup(f func()) { s.cleanups = append(s.cleanups, f) }

// served is one loopback cloud as this command serves it, with its flags.
type served struct {
	fakeclouds.Loopback
	env          cloudfacts.Env
	token, state *string
	port         *int
	cloud        fakeclouds.Cloud
	// prices are the repository's table of the cloud's sizes (the driver's), which its sizes API
	// answers with, as the sandbox's does.
	prices map[string]float64
	// upgradeTime is -upgrade-time: how long a Kubernetes upgrade takes where the cloud reports
	// one under way (bench/upgrade.sh).
	upgradeTime *time.Duration
}

func main() {
	var all []*served
	for _, l := range fakeclouds.All() {
		d, err := clouds.Get(l.ID)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakeclouds: %v\n", err)
			os.Exit(1)
		}
		c := &served{Loopback: l, env: d.Env(), prices: d.Prices().Sizes}
		id, name := string(l.ID), c.env.Name
		c.token = flag.String(id+"-token", "", "the token the "+name+" API accepts")
		c.port = flag.Int(id+"-port", 0, "the loopback port the "+name+" API listens on (0: any free one); a stack records its provider's "+
			"API URL, so a cloud restarted from -"+id+"-state must be served where it was")
		c.state = flag.String(id+"-state", "", "the file the "+name+" cloud is loaded from at start when it exists (its Save format), and "+
			"saved to after every change (bench/fleet.sh: a fleet tools/fleetgen wrote)")
		all = append(all, c)
	}
	anyToken := flag.String("token", "", "the token every cloud without its own -<cloud>-token accepts")
	upgradeTime := flag.Duration("upgrade-time", 0, "how long each Kubernetes upgrade takes, where the cloud reports one under way (0: at once)")
	for _, c := range all {
		c.upgradeTime = upgradeTime
	}
	env := flag.String("env", "", "the file to write each cloud's API URL variable to, as KEY=VALUE lines")
	requests := flag.String("requests", "", "the file to append one line to for every request a cloud answers: unix time, cloud, method, status, path with its query, and the User-Agent's first word, which is clusterplane for its own requests (bench/takeover.sh counts them)")
	seeded := flag.Int("seed", 0, "clusters to create in each cloud before serving, each with one more pool, as the clouds' own tools would (bench/discover.sh)")
	examples := flag.Bool("examples", false, "put into each new cloud what the examples name by id (their clusters, networks and VPC), "+
		"as the sandbox does, so that every example deploys; a cloud loaded from its -<cloud>-state keeps what it holds")
	flag.Parse()
	giveTokens(all, *anyToken)
	if !usable(all, *env) {
		os.Exit(2)
	}
	s := &server{}
	for _, c := range all {
		c.cloud = c.Start(s, *c.token, *c.port, fakecloud.Lifetime)
	}
	serve(s, all, *env, *requests, *seeded, *examples)
}

// giveTokens gives token to every cloud that has none of its own.
func giveTokens(all []*served, token string) {
	for _, c := range all {
		if *c.token == "" {
			*c.token = token
		}
	}
}

// usable tells whether every token and the env file are given, saying how to call when not.
func usable(all []*served, env string) bool {
	usage, ok := "usage: fakeclouds (-token T |", env != ""
	for _, c := range all {
		usage += " -" + string(c.ID) + "-token T"
		ok = ok && *c.token != ""
	}
	if !ok {
		fmt.Fprintln(os.Stderr, usage+") -env FILE")
	}
	return ok
}

// serve logs, prices, loads and seeds the clouds as asked, writes the environment that points the
// providers at them, and serves until stopped or fakecloud.Lifetime passes.
func serve(s *server, all []*served, env, requests string, seeded int, examples bool) {
	if requests != "" {
		if err := logRequests(requests, all); err != nil {
			s.Fatalf("request log: %v", err)
		}
	}
	var text string
	for _, c := range all {
		ready(s, c, examples)
		text += c.env.URLEnv + "=" + c.cloud.URL() + "\n"
	}
	if err := seedClouds(seeded, all); err != nil {
		s.Fatalf("seed: %v", err)
	}
	if err := os.WriteFile(env, []byte(text), 0o600); err != nil {
		s.Fatalf("write %s: %v", env, err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	select {
	case <-stop:
	case <-time.After(fakecloud.Lifetime):
	}
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
}

// logRequests appends a line to path for every request a cloud answers, as it is answered, so
// that a bench can count what each command cost between two points in the file: time, cloud,
// method, status, path with its query (a list's page), and the first word of the User-Agent,
// which tells clusterplane's own requests ("clusterplane") from a provider plugin's. Nothing else
// of a request is written: a body or another header could hold a secret.
func logRequests(path string, all []*served) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	for _, c := range all {
		c.cloud.OnRequest(func(at time.Time, r fakecloud.Request) {
			mu.Lock()
			defer mu.Unlock()
			// One write a line, unbuffered: the bench reads the file while the clouds serve.
			path := r.Path
			if r.Query != "" {
				path += "?" + r.Query
			}
			client, _, _ := strings.Cut(r.UserAgent, " ")
			if client == "" {
				client = "-"
			}
			_, _ = fmt.Fprintf(f, "%.3f %s %s %d %s %s\n", float64(at.UnixMilli())/1000, c.ID, r.Method, r.Status, path, client)
		})
	}
	return nil
}

// ready prices the cloud's sizes as the repository's table does (the sandbox's way: a size the
// table does not price is listed without a price, never at the fake's $10), loads the cloud from
// its state file when there is one and saves it there from then on, and puts what the examples
// name by id into a new cloud when asked.
func ready(s fakecloud.TB, c *served, examples bool) {
	if c.SetPrices != nil {
		c.SetPrices(c.cloud, c.prices)
	}
	if c.SetUpgradeTime != nil && c.upgradeTime != nil {
		c.SetUpgradeTime(c.cloud, *c.upgradeTime)
	}
	loaded := false
	if path := *c.state; path != "" {
		var save func() error
		var err error
		save, loaded, err = keepState(path, c.cloud)
		if err != nil {
			s.Fatalf("%s state: %v", c.env.Name, err)
		}
		// Saved once more on the way out: what reads settled (a cluster's nodes running, its
		// certificate authority made) is no change and was not saved as it happened.
		s.Cleanup(func() {
			if err := save(); err != nil {
				fmt.Fprintf(os.Stderr, "fakeclouds: save %s: %v\n", path, err)
			}
		})
	}
	if examples && !loaded && c.Examples != nil {
		c.Examples(c.cloud)
	}
}

// keepState loads the cloud from path when the file exists, and saves it there after every
// request that may have changed it, as the sandbox keeps its clouds: a later run finds what this
// one made, and a fleet tools/fleetgen wrote is served as it is. It returns the save, for the
// caller to save once more when it stops, and whether the cloud was loaded from the file.
func keepState(path string, do fakeclouds.Cloud) (save func() error, loaded bool, err error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, false, err
	default:
		if err := do.Load(data); err != nil {
			return nil, false, fmt.Errorf("load %s: %w", path, err)
		}
		loaded = true
	}
	save = func() error {
		data, err := do.Save()
		if err != nil {
			return err
		}
		return atomicwrite.File(path, data)
	}
	do.OnChange(func() {
		if err := save(); err != nil {
			fmt.Fprintf(os.Stderr, "fakeclouds: save %s: %v\n", path, err)
		}
	})
	return save, loaded, save()
}

// seedClouds creates n clusters in each cloud through its API, as other tools would have, each
// with a second pool, spread over two regions: an account for discover to read.
func seedClouds(n int, all []*served) error {
	ctx := context.Background()
	for i := range n {
		cl := seed.Cluster{Name: fmt.Sprintf("bench-%03d", i), Region: []string{"fra1", "lon1"}[i%2],
			Pools: []seed.Pool{{Count: 1}, {Name: "extra", Count: 1}}}
		for _, c := range all {
			if err := c.Seed(ctx, seed.Client{URL: c.cloud.URL(), Token: *c.token}, cl); err != nil {
				return err
			}
		}
	}
	return nil
}
