package sandbox

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
)

// Clouds are the loopback DigitalOcean and Civo APIs of a sandbox's folder, saved to its
// clouds.json after every change and when closed.
type Clouds struct {
	DO   *fakedo.DO
	Civo *fakecivo.Civo

	dir   string
	owner *owner
	// saveMu keeps two saves from interleaving: each writes a whole, newer snapshot.
	saveMu sync.Mutex
}

// saved is clouds.json.
type saved struct {
	DigitalOcean json.RawMessage `json:"digitalocean"`
	Civo         json.RawMessage `json:"civo"`
	// The ports the APIs listened on, taken again when free: a provider's URL is in its stack's
	// state, and a new one would show as a change to every stack.
	DigitalOceanPort int `json:"digitaloceanPort"`
	CivoPort         int `json:"civoPort"`
}

// owner is what the fakes need of their caller (fakecloud.TB) outside a test: a failure to
// listen is returned by StartClouds, and Close runs what they leave to clean up.
type owner struct{ cleanups []func() }

type startError struct{ err error }

func (*owner) Helper() {}

func (*owner) Fatalf(format string, args ...any) {
	panic(startError{fmt.Errorf(format, args...)})
}

func (o *owner) Cleanup(f func()) { o.cleanups = append(o.cleanups, f) }

// StartClouds serves the clouds of dir on 127.0.0.1: what clouds.json holds, or, in a new
// sandbox, what the examples name by id (seedExamples).
func StartClouds(dir string) (c *Clouds, err error) {
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
	var ports saved
	if err == nil {
		_ = json.Unmarshal(data, &ports)
	}
	c.DO = fakedo.NewFor(c.owner, DigitalOceanToken, ports.DigitalOceanPort, 0)
	// The sandbox's sizes API prices as the repository's table does; a size the table does not
	// price (the GPU sizes) is listed without a price, so that it reads unknown, never $10.
	table := digitalocean.Driver{}.Prices()
	for _, size := range fakedo.DefaultSizes {
		c.DO.SetPrice(size, table.Sizes[size])
	}
	c.Civo = fakecivo.NewFor(c.owner, CivoToken, "", ports.CivoPort, 0)
	// Nothing leaves the machine: a cluster's endpoint that a client dials (upgrade plan reading
	// the cluster) is a loopback address, never a DNS name or a TEST-NET address.
	c.DO.LoopbackEndpoints()
	c.Civo.LoopbackEndpoints()
	switch {
	case errors.Is(err, os.ErrNotExist):
		seedExamples(c.DO, c.Civo)
		if err := c.Save(); err != nil {
			c.stop()
			return nil, err
		}
	case err != nil:
		c.stop()
		return nil, errors.Wrap(err, "read the sandbox's clouds")
	default:
		if err := c.load(data); err != nil {
			c.stop()
			return nil, errors.Wrapf(err, "load %s (remove it, or run `clusterplane sandbox reset`, to start afresh)", filepath.Join(dir, cloudsFile))
		}
	}
	save := func() {
		if err := c.Save(); err != nil {
			fmt.Fprintf(os.Stderr, "clusterplane sandbox: %v\n", err)
		}
	}
	c.DO.OnChange(save)
	c.Civo.OnChange(save)
	return c, nil
}

func (c *Clouds) load(data []byte) error {
	var s saved
	if err := json.Unmarshal(data, &s); err != nil {
		return errors.Wrap(err, "decode the clouds")
	}
	if err := c.DO.Load(s.DigitalOcean); err != nil {
		return err
	}
	return c.Civo.Load(s.Civo)
}

// Save writes both clouds to clouds.json, whole or not at all (a new file renamed over the old).
func (c *Clouds) Save() error {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	var s saved
	var err error
	if s.DigitalOcean, err = c.DO.Save(); err != nil {
		return err
	}
	if s.Civo, err = c.Civo.Save(); err != nil {
		return err
	}
	s.DigitalOceanPort, s.CivoPort = port(c.DO.URL()), port(c.Civo.URL())
	data, err := json.MarshalIndent(s, "", "  ")
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

// What the examples in examples/ name by id and no example creates, as a user's existing
// clusters and networks: the clusters the node pool examples join, the networks and the VPC the
// cluster examples join (the same as e2e/cloud_test.go seeds).
const (
	exampleCivoCluster    = "0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e"
	exampleCivoGPUCluster = "6e2f8a4c-1b3d-4f5a-9c7e-0d1f2a3b4c5d"
	exampleDOCluster      = "b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d"
	exampleDOGPUCluster   = "4d8e2f6a-0b1c-4d3e-9f5a-7b9c1d3e5f7a"
	exampleVPC            = "7b3f9e21-4c6a-4d8b-9e0f-1a2b3c4d5e6f"
)

var exampleNetworks = []struct{ id, region string }{
	{"8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b", "fra1"},
	{"3c1e0f62-9d4b-4a7e-b8c5-2f6a1d9e0b73", "fra1"},
	{"5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f", "lon1"},
	{"8f4a2c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b", "fra1"}, // examples/go
}

// seedExamples puts into new clouds what the examples name by id, so that each deploys.
func seedExamples(do *fakedo.DO, civo *fakecivo.Civo) {
	for _, n := range exampleNetworks {
		civo.SeedNetwork(n.id, "example-"+n.id[:8], n.region)
	}
	do.SeedVPC(exampleVPC, "ams3")
	for _, cl := range []struct{ id, region string }{{exampleCivoCluster, "fra1"}, {exampleCivoGPUCluster, "lon1"}} {
		civo.SeedCluster(civogo.KubernetesCluster{ID: cl.id, Name: "example-" + cl.id[:8], NetworkID: civo.DefaultNetworkID(cl.region)})
	}
	for _, id := range []string{exampleDOCluster, exampleDOGPUCluster} {
		do.SeedCluster(godo.KubernetesCluster{ID: id, Name: "example-" + id[:8], RegionSlug: "ams3",
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	}
}
