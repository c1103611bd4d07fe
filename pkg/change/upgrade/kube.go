package upgrade

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pkg/errors"
	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig a read-only client needs: the current context's server,
// its certificate authority, and the user's token or client certificate. Inline data only: the
// kubeconfigs the clouds serve carry everything inline, and nothing here reads or writes a file.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server   string `json:"server"`
			CAData   string `json:"certificate-authority-data"`
			Insecure bool   `json:"insecure-skip-tls-verify"`
		} `json:"cluster"`
	} `json:"clusters"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			Token    string `json:"token"`
			CertData string `json:"client-certificate-data"`
			KeyData  string `json:"client-key-data"`
		} `json:"user"`
	} `json:"users"`
}

// kubeClient reads a cluster's API through its kubeconfig, held in memory only.
type kubeClient struct {
	server string
	token  string
	http   *http.Client
}

// newKubeClient is a client of the kubeconfig's current context. Its errors never quote the
// kubeconfig: it holds credentials.
func newKubeClient(data []byte) (*kubeClient, error) {
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, errors.New("the cluster's kubeconfig is not YAML")
	}
	ctxName := kc.CurrentContext
	if ctxName == "" && len(kc.Contexts) == 1 {
		ctxName = kc.Contexts[0].Name
	}
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == ctxName {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	c := &kubeClient{}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	found := false
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		found = true
		c.server = strings.TrimSuffix(cl.Cluster.Server, "/")
		if cl.Cluster.CAData != "" {
			pem, err := base64.StdEncoding.DecodeString(cl.Cluster.CAData)
			if err != nil {
				return nil, errors.New("the kubeconfig's certificate-authority-data is not base64")
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, errors.New("the kubeconfig's certificate-authority-data holds no certificate")
			}
			tlsConfig.RootCAs = pool
		}
		// The user asked for it in their kubeconfig; the cloud's never do.
		tlsConfig.InsecureSkipVerify = cl.Cluster.Insecure //nolint:gosec
	}
	if !found || c.server == "" {
		return nil, errors.Errorf("the kubeconfig's context %q names no cluster with a server", ctxName)
	}
	for _, u := range kc.Users {
		if u.Name != userName {
			continue
		}
		c.token = u.User.Token
		if u.User.CertData != "" {
			cert, err1 := base64.StdEncoding.DecodeString(u.User.CertData)
			key, err2 := base64.StdEncoding.DecodeString(u.User.KeyData)
			if err1 != nil || err2 != nil {
				return nil, errors.New("the kubeconfig's client certificate is not base64")
			}
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				return nil, errors.New("the kubeconfig's client certificate does not parse")
			}
			tlsConfig.Certificates = []tls.Certificate{pair}
		}
	}
	c.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	return c, nil
}

// errNotServed is a 404 for a list: the server does not serve that API version.
var errNotServed = errors.New("not served")

// list reads every object of a collection, page by page; errNotServed when the server does not
// serve it.
func (c *kubeClient) list(ctx context.Context, path string) ([]map[string]any, error) {
	var out []map[string]any
	next := ""
	for page := 0; page < 1000; page++ {
		q := url.Values{"limit": {"500"}}
		if next != "" {
			q.Set("continue", next)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.server+path+"?"+q.Encode(), nil)
		if err != nil {
			return nil, errors.New("the kubeconfig's server is not a URL")
		}
		req.Header.Set("Accept", "application/json")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			// The URL is the cluster's endpoint, no secret; the error holds no header.
			return nil, errors.Wrapf(err, "GET %s", path)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			return nil, errNotServed
		}
		if resp.StatusCode != http.StatusOK {
			return nil, errors.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
		}
		if err != nil {
			return nil, errors.Wrapf(err, "read %s", path)
		}
		var l struct {
			Items    []map[string]any `json:"items"`
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, errors.Wrapf(err, "read %s", path)
		}
		out = append(out, l.Items...)
		if next = l.Metadata.Continue; next == "" {
			return out, nil
		}
	}
	return nil, fmt.Errorf("GET %s: too many pages", path)
}
