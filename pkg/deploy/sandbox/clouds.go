package sandbox

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
	"github.com/pkg/errors"
)

// Clouds are the loopback clouds of a sandbox's folder, one per cloud a driver knows
// (pkg/loopback/fakeclouds), saved to its clouds.json after every change and when closed.
type Clouds struct {
	// served are the clouds by ID, in the drivers' order.
	served []servedCloud

	dir   string
	owner *owner
	// saveMu keeps two saves from interleaving: each writes a whole, newer snapshot.
	saveMu sync.Mutex
}

// servedCloud is one loopback cloud the sandbox serves.
type servedCloud struct {
	fakeclouds.Loopback
	cloud fakeclouds.Cloud
}

// Cloud is the loopback cloud id; nil for a cloud the sandbox does not serve.
func (c *Clouds) Cloud(id cloud.ID) fakeclouds.Cloud {
	for _, s := range c.served {
		if s.ID == id {
			return s.cloud
		}
	}
	return nil
}

// URLs are the clouds' API URLs by ID.
func (c *Clouds) URLs() map[cloud.ID]string {
	out := map[cloud.ID]string{}
	for _, s := range c.served {
		out[s.ID] = s.cloud.URL()
	}
	return out
}

// clouds.json holds each cloud's state under its ID, and the port its API listened on under
// <ID>Port, taken again when free: a provider's URL is in its stack's state, and a new one would
// show as a change to every stack.
const portSuffix = "Port"

// owner is what the fakes need of their caller (fakecloud.TB) outside a test: a failure to
// listen is returned by StartClouds, and Close runs what they leave to clean up.
type owner struct{ cleanups []func() }

type startError struct{ err error }

func (*owner) Helper() {}

func (*owner) Fatalf(format string, args ...any) {
	panic(startError{fmt.Errorf(format, args...)})
}

func (o *owner) Cleanup(f func()) { o.cleanups = append(o.cleanups, f) }

// UpgradeTimeEnv names how long the sandbox's DigitalOcean takes to upgrade a cluster's
// Kubernetes, as a Go duration ("4s", "1m", "0" for at once): meanwhile the cluster reports
// itself upgrading at its old version and its nodes restarting, as DigitalOcean does for
// minutes. DefaultUpgradeTime without it. A sandbox already running in the background keeps the
// time it started with: `sandbox stop` it first.
const UpgradeTimeEnv = "CLUSTERPLANE_SANDBOX_UPGRADE_TIME"

// DefaultUpgradeTime is how long the sandbox's DigitalOcean takes to upgrade a cluster without
// $CLUSTERPLANE_SANDBOX_UPGRADE_TIME: long enough that a client reading the cluster right after
// the upgrade sees it upgrading, as it would on DigitalOcean, short enough not to wait for.
const DefaultUpgradeTime = 4 * time.Second

// upgradeTime reads UpgradeTimeEnv's value ("" for unset).
func upgradeTime(value string) (time.Duration, error) {
	if value == "" {
		return DefaultUpgradeTime, nil
	}
	t, err := time.ParseDuration(value)
	if err != nil || t < 0 {
		return 0, errors.Errorf("$%s is %q, not a duration such as 4s, 1m or 0 (at once)", UpgradeTimeEnv, value)
	}
	return t, nil
}

// StartClouds serves the clouds of dir on 127.0.0.1: what clouds.json holds, or, in a new
// sandbox, what the examples name by id. Its DigitalOcean's upgrades take UpgradeTimeEnv's time.
func StartClouds(dir string) (c *Clouds, err error) {
	took, err := upgradeTime(os.Getenv(UpgradeTimeEnv))
	if err != nil {
		return nil, errors.Wrap(err, "start the loopback clouds")
	}
	c = &Clouds{dir: dir, owner: &owner{}}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(startError)
			if !ok {
				panic(r)
			}
			c.stop()
			c, err = nil, errors.Wrap(se.err, "start the loopback clouds")
		}
	}()
	data, err := os.ReadFile(filepath.Join(dir, cloudsFile))
	var saved map[string]json.RawMessage
	if err == nil {
		_ = json.Unmarshal(data, &saved)
	}
	for _, id := range clouds.IDs() {
		l, missing := loopbackOf(id, fakeclouds.Get)
		if missing != nil {
			c.stop()
			return nil, missing
		}
		var port int
		_ = json.Unmarshal(saved[string(l.ID)+portSuffix], &port)
		served := servedCloud{Loopback: l, cloud: l.Start(c.owner, Token(l.ID), port, 0)}
		// The sandbox's sizes API prices as the repository's table does; a size the table does
		// not price (the GPU sizes) is listed without a price, so that it reads unknown, never $10.
		if d, err := clouds.Get(l.ID); err == nil && l.SetPrices != nil {
			l.SetPrices(served.cloud, d.Prices().Sizes)
		}
		// Nothing leaves the machine: a cluster's endpoint that a client dials (upgrade plan
		// reading the cluster) is a loopback address, never a DNS name or a TEST-NET address.
		served.cloud.LoopbackEndpoints()
		if l.SetUpgradeTime != nil {
			l.SetUpgradeTime(served.cloud, took)
		}
		c.served = append(c.served, served)
	}
	if err := c.open(data, err); err != nil {
		c.stop()
		return nil, err
	}
	save := func() {
		if err := c.Save(); err != nil {
			fmt.Fprintf(os.Stderr, "clusterplane sandbox: %v\n", err)
		}
	}
	for _, s := range c.served {
		s.cloud.OnChange(save)
	}
	return c, nil
}

// loopbackOf is the loopback cloud of the driver id, as get finds it; an error naming the driver
// and the list its loopback belongs in when it has none, rather than a sandbox that quietly
// serves every cloud but that one.
func loopbackOf(id cloud.ID, get func(cloud.ID) (fakeclouds.Loopback, bool)) (fakeclouds.Loopback, error) {
	if l, ok := get(id); ok {
		return l, nil
	}
	return fakeclouds.Loopback{}, errors.Errorf("the %s driver has no loopback cloud for the sandbox to serve: "+
		"add its line to All in pkg/loopback/fakeclouds (docs/contributing.md, Adding a cloud)", id)
}

// open fills the clouds: from clouds.json's data, or, when readErr says there is none, with what
// the examples name by id, saved at once.
func (c *Clouds) open(data []byte, readErr error) error {
	switch {
	case errors.Is(readErr, os.ErrNotExist):
		for _, s := range c.served {
			s.Examples(s.cloud)
		}
		return c.Save()
	case readErr != nil:
		return errors.Wrap(readErr, "read the sandbox's clouds")
	}
	if err := c.load(data); err != nil {
		return errors.Wrapf(err, "load %s (remove it, or run `clusterplane sandbox reset`, to start afresh)", filepath.Join(c.dir, cloudsFile))
	}
	return nil
}

func (c *Clouds) load(data []byte) error {
	var saved map[string]json.RawMessage
	if err := json.Unmarshal(data, &saved); err != nil {
		return errors.Wrap(err, "decode the clouds")
	}
	for _, s := range c.served {
		if err := s.cloud.Load(saved[string(s.ID)]); err != nil {
			return err
		}
	}
	return nil
}

// Save writes every cloud to clouds.json, whole or not at all (a new file renamed over the old).
func (c *Clouds) Save() error {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	saved := map[string]any{}
	for _, s := range c.served {
		state, err := s.cloud.Save()
		if err != nil {
			return err
		}
		saved[string(s.ID)] = json.RawMessage(state)
		saved[string(s.ID)+portSuffix] = port(s.cloud.URL())
	}
	data, err := json.MarshalIndent(saved, "", "  ")
	if err != nil {
		return errors.Wrap(err, "encode the clouds")
	}
	path := filepath.Join(c.dir, cloudsFile)
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return errors.Wrap(err, "save the sandbox's clouds")
	}
	return errors.Wrap(os.Rename(tmp, path), "save the sandbox's clouds")
}

// port is the port of a loopback URL, 0 when it has none.
func port(rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(u.Port())
	return n
}

// Close saves the clouds and stops them.
func (c *Clouds) Close() error {
	err := c.Save()
	c.stop()
	return err
}

func (c *Clouds) stop() {
	for i := len(c.owner.cleanups) - 1; i >= 0; i-- {
		c.owner.cleanups[i]()
	}
	c.owner.cleanups = nil
}
