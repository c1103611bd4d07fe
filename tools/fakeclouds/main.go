// Command fakeclouds serves the tests' loopback DigitalOcean and Civo APIs (internal/fakedo,
// internal/fakecivo) on their own, for what runs outside a Go test: bench/deploy.sh. It writes
// the environment that points the providers at them, then serves until it is stopped or
// fakecloud.Lifetime passes.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/clusterplane/clusterplane/internal/fakecivo"
	"github.com/clusterplane/clusterplane/internal/fakecloud"
	"github.com/clusterplane/clusterplane/internal/fakedo"
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
	flag.Parse()
	if *doToken == "" || *civoToken == "" || *env == "" {
		fmt.Fprintln(os.Stderr, "usage: fakeclouds -digitalocean-token T -civo-token T -env FILE")
		os.Exit(2)
	}
	s := &server{}
	do := fakedo.New(s, *doToken)
	civo := fakecivo.New(s, *civoToken, "")
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
