// Package seed fills the loopback clouds with clusters made elsewhere: through the clouds' own
// HTTP APIs, with the requests and defaults of the tools people make clusters with, so that what
// clusterplane later finds is what it would find in a real account. It speaks HTTP only, so it
// seeds a fake in the test's process and one served by tools/fakeclouds alike.
//
// This package holds what every cloud's seeder shares: the cluster and pool asked for, and the
// client that sends them. Each loopback cloud seeds itself as its cloud's own tools do, beside its
// fake (pkg/loopback/fake*/seed.go, e.g. fakedo.Seed), with those tools' defaults written there.
package seed

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Console is the Tool of a cluster made in a cloud's web console; each loopback cloud names its
// own command-line tools (fakedo.Doctl), so that this package names no cloud.
const Console = "console"

// Taint is a node taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Pool is a node pool as the tool is asked for it; zero fields take the tool's defaults.
type Pool struct {
	Name      string
	Size      string
	Count     int
	AutoScale bool
	Min, Max  int
	Labels    map[string]string
	Taints    []Taint
	Tags      []string
}

// Cluster is a cluster as the tool is asked for it; zero fields take the tool's defaults. The
// first pool is the one the cluster is created with; the others are added afterwards, as the
// tools' node-pool commands add them.
type Cluster struct {
	Tool        string
	Name        string
	Region      string
	Version     string
	AutoUpgrade bool
	HA          bool
	Tags        []string
	Pools       []Pool
	// Applications are marketplace applications to install besides the defaults, on a cloud
	// whose clusters have them.
	Applications []string
}

// Client POSTs to one loopback cloud.
type Client struct {
	// URL is the API's base URL; Token the account's token.
	URL, Token string
	HTTP       *http.Client
}

// Post sends body to the API's path with the token under the authorization scheme the cloud's
// tools write, and reads the answer into out.
func (cl Client) Post(ctx context.Context, path, scheme string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return cl.do(ctx, http.MethodPost, path, scheme, data, out)
}

// Get reads the API's path into out, as Post.
func (cl Client) Get(ctx context.Context, path, scheme string, out any) error {
	return cl.do(ctx, http.MethodGet, path, scheme, nil, out)
}

func (cl Client) do(ctx context.Context, method, path, scheme string, body []byte, out any) error {
	hc := cl.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(cl.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", scheme+" "+cl.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return errors.Errorf("%s %s: no answer", method, path)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode/100 != 2 {
		return errors.Errorf("%s %s: HTTP %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return errors.Wrapf(json.Unmarshal(data, out), "%s %s: read the answer", method, path)
}

// Or is s, or def when s is empty: a tool's default for what the cluster leaves out.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
