// Command fakeclouds serves the tests' loopback DigitalOcean and Civo APIs (pkg/loopback/fakedo,
// pkg/loopback/fakecivo) on their own, for what runs outside a Go test: bench/deploy.sh. It writes
// the environment that points the providers at them, then serves until it is stopped or
// fakecloud.Lifetime passes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// server is the fakes' caller: it fails by exiting and cleans up on the way out.
type server struct{ cleanups []func() }

func (*server) Helper() {}

func (*server) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakeclouds: "+format+"\n", args...)
	os.Exit(1)
}

func (s *server) Cleanup(f func()) { s.cleanups = append(s.cleanups, f) }

func main() {
	doToken := flag.String("digitalocean-token", "", "the token the DigitalOcean API accepts")
	civoToken := flag.String("civo-token", "", "the token the Civo API accepts")
	env := flag.String("env", "", "the file to write DIGITALOCEAN_API_URL and CIVO_API_URL to, as KEY=VALUE lines")
	requests := flag.String("requests", "", "the file to append one line to for every request either cloud answers: unix time, cloud, method, status, path (bench/takeover.sh counts them)")
	seeded := flag.Int("seed", 0, "clusters to create in each cloud before serving, each with one more pool, as doctl and the civo CLI would (bench/discover.sh)")
	doPort := flag.Int("digitalocean-port", 0, "the loopback port the DigitalOcean API listens on (0: any free one); a stack records its provider's API URL, so a cloud restarted from -digitalocean-state must be served where it was")
	doState := flag.String("digitalocean-state", "", "the file the DigitalOcean cloud is loaded from at start when it exists (fakedo's Save format), and saved to after every change (bench/fleet.sh: a fleet tools/fleetgen wrote)")
	flag.Parse()
	if *doToken == "" || *civoToken == "" || *env == "" {
		fmt.Fprintln(os.Stderr, "usage: fakeclouds -digitalocean-token T -civo-token T -env FILE")
		os.Exit(2)
	}
	s := &server{}
	do := fakedo.NewFor(s, *doToken, *doPort, fakecloud.Lifetime)
	civo := fakecivo.New(s, *civoToken, "")
	if *requests != "" {
		if err := logRequests(*requests, do, civo); err != nil {
			s.Fatalf("request log: %v", err)
		}
	}
	if *doState != "" {
		save, err := keepState(*doState, do)
		if err != nil {
			s.Fatalf("DigitalOcean state: %v", err)
		}
		// Saved once more on the way out: what reads settled (a cluster's nodes running, its
		// certificate authority made) is no change and was not saved as it happened.
		s.Cleanup(func() {
			if err := save(); err != nil {
				fmt.Fprintf(os.Stderr, "fakeclouds: save %s: %v\n", *doState, err)
			}
		})
	}
	if err := seedClouds(*seeded, do.URL(), *doToken, civo.URL(), *civoToken); err != nil {
		s.Fatalf("seed: %v", err)
	}
	text := fmt.Sprintf("DIGITALOCEAN_API_URL=%s\nCIVO_API_URL=%s\n", do.URL(), civo.URL())
	if err := os.WriteFile(*env, []byte(text), 0o600); err != nil {
		s.Fatalf("write %s: %v", *env, err)
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

// logRequests appends a line to path for every request either cloud answers, as it is answered,
// so that a bench can count what each command cost between two points in the file. Only the
// method, status and path are written: a body or a header could hold a secret.
func logRequests(path string, do *fakedo.DO, civo *fakecivo.Civo) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	logger := func(cloud string) func(time.Time, fakecloud.Request) {
		return func(at time.Time, r fakecloud.Request) {
			mu.Lock()
			defer mu.Unlock()
			// One write a line, unbuffered: the bench reads the file while the clouds serve.
			_, _ = fmt.Fprintf(f, "%.3f %s %s %d %s\n", float64(at.UnixMilli())/1000, cloud, r.Method, r.Status, r.Path)
		}
	}
	do.OnRequest(logger("digitalocean"))
	civo.OnRequest(logger("civo"))
	return nil
}

// keepState loads the DigitalOcean cloud from path when the file exists, and saves it there
// after every request that may have changed it, as the sandbox keeps its clouds: a later run
// finds what this one made, and a fleet tools/fleetgen wrote is served as it is. It returns the
// save, for the caller to save once more when it stops.
func keepState(path string, do *fakedo.DO) (func() error, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := do.Load(data); err != nil {
			return nil, fmt.Errorf("load %s: %w", path, err)
		}
	}
	save := func() error {
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
	return save, save()
}

// seedClouds creates n clusters in each cloud through its API, as other tools would have, each
// with a second pool, spread over two regions: an account for discover to read.
func seedClouds(n int, doURL, doToken, civoURL, civoToken string) error {
	ctx := context.Background()
	do, civo := seed.Client{URL: doURL, Token: doToken}, seed.Client{URL: civoURL, Token: civoToken}
	for i := range n {
		c := seed.Cluster{Name: fmt.Sprintf("bench-%03d", i), Region: []string{"fra1", "lon1"}[i%2],
			Pools: []seed.Pool{{Count: 1}, {Name: "extra", Count: 1}}}
		if _, _, err := do.DigitalOcean(ctx, c); err != nil {
			return err
		}
		if _, _, err := civo.Civo(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
