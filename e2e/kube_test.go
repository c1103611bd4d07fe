//go:build e2e

package e2e_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// kube is a real Kubernetes control plane on loopback: etcd and kube-apiserver, built by
// `make kube` (tools/kube) into .engine/kube, each test its own, stopped when the test ends on
// every path (t.Cleanup; and the kernel kills them if the test binary dies: see procattr).
// Clients talk plain HTTPS and JSON with an admin token, which keeps client-go out of the
// module: nothing but this test needs it.
type kube struct {
	t      *testing.T
	url    string
	token  string
	client *http.Client
	dir    string
	// tokens are the other components' tokens, by user (newKubeCluster starts them).
	tokens map[string]string
}

// kubeBinaries are etcd and kube-apiserver, or a failure saying how to build them.
func kubeBinaries(t *testing.T) (etcd, apiserver string) {
	t.Helper()
	dir := filepath.Join(root, ".engine", "kube")
	etcd, apiserver = filepath.Join(dir, "etcd"), filepath.Join(dir, "kube-apiserver")
	for _, b := range []string{etcd, apiserver} {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("the Kubernetes control plane is not built: run `make kube` (or `make e2e`, which builds it): %v", err)
		}
	}
	return etcd, apiserver
}

// handedOut holds every port lowPort has returned in this test binary: a port is probed free
// and then bound later by a process that is still starting, so without the record two tests
// running side by side (or two components of one control plane) could be handed the same port
// in that window and one of them would fail to bind.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// lowPort is a loopback TCP port nothing listens on and no other caller in this test binary was
// given, below the ephemeral range (32768 and up on Linux), where the kernel would hand it to an
// outgoing connection meanwhile.
func lowPort(t *testing.T) int {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for i := 0; i < 100; i++ {
		n, err := rand.Int(rand.Reader, big.NewInt(10000))
		if err != nil {
			t.Fatal(err)
		}
		port := 20000 + int(n.Int64())
		if handedOut.ports[port] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		l.Close()
		handedOut.ports[port] = true
		return port
	}
	t.Fatal("no free loopback port between 20000 and 30000")
	return 0
}

// randomHex is a fresh random token.
func randomHex(t *testing.T) string {
	t.Helper()
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(secret)
}

// writePEM writes one PEM block to path, readable by the owner only.
func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pki writes a CA, a serving certificate of 127.0.0.1 signed by it, and an RSA key pair that signs
// service-account tokens, into dir; it returns the CA's pool.
func pki(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "clusterplane-e2e-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serving := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, serving, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "ca.crt"), "CERTIFICATE", caDER)
	writePEM(t, filepath.Join(dir, "server.crt"), "CERTIFICATE", der)
	writePEM(t, filepath.Join(dir, "server.key"), "EC PRIVATE KEY", keyDER)
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "sa.key"), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(sa))
	writePEM(t, filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool
}

// startProcess runs a control-plane binary, logging to dir/name.log, and stops it when the test ends.
func startProcess(t *testing.T, dir, name, binary string, args ...string) {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procattr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		// The whole process group: nothing a component started outlives the test.
		killGroup(cmd)
		<-done
		if t.Failed() {
			// The last lines say why a server refused or died; they hold no token.
			data, _ := os.ReadFile(filepath.Join(dir, name+".log"))
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) > 15 {
				lines = lines[len(lines)-15:]
			}
			t.Logf("%s, last lines:\n%s", name, strings.Join(lines, "\n"))
		}
	})
}

// newKube starts etcd and kube-apiserver (RBAC authorization, a token file for the admin) and
// waits until the API server is ready.
func newKube(t *testing.T) *kube {
	t.Helper()
	etcd, apiserver := kubeBinaries(t)
	// A short path: etcd's unix sockets and the API server's flags are happier with one.
	dir, err := os.MkdirTemp("", "cpkube")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pool := pki(t, dir)
	token := randomHex(t)
	// The other components' identities too, so that newKubeCluster can start them on this server
	// (../shared/design/kubernetes.md): kwok is a master, the controller manager and the scheduler
	// are the users the default RBAC roles name.
	k8sTokens := map[string]string{}
	var tokens strings.Builder
	fmt.Fprintf(&tokens, "%s,admin,admin-uid,system:masters\n", token)
	for _, u := range []struct{ user, group string }{
		{"kwok", "system:masters"}, {"system:kube-controller-manager", ""}, {"system:kube-scheduler", ""},
	} {
		k8sTokens[u.user] = randomHex(t)
		fmt.Fprintf(&tokens, "%s,%s,%s-uid,%s\n", k8sTokens[u.user], u.user, u.user, u.group)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	client, peer, secure := lowPort(t), lowPort(t), lowPort(t)
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	startProcess(t, dir, "etcd", etcd,
		"--name", "e2e", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "e2e="+peerURL, "--unsafe-no-fsync", "--log-level", "warn")
	startProcess(t, dir, "kube-apiserver", apiserver,
		"--etcd-servers", clientURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", fmt.Sprintf("--secure-port=%d", secure),
		"--tls-cert-file", filepath.Join(dir, "server.crt"), "--tls-private-key-file", filepath.Join(dir, "server.key"),
		"--client-ca-file", filepath.Join(dir, "ca.crt"), "--requestheader-client-ca-file", filepath.Join(dir, "ca.crt"),
		"--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", "Node,RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file", filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range", "10.96.0.0/24",
		// No Endpoints object for a loopback address (../shared/design/kubernetes.md).
		"--endpoint-reconciler-type", "none",
		"--cert-dir", filepath.Join(dir, "certs"))
	k := &kube{
		t: t, url: fmt.Sprintf("https://127.0.0.1:%d", secure), token: token, dir: dir, tokens: k8sTokens,
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}},
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, body := k.try("GET", "/readyz", nil)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready after 2 minutes: %d %s", code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	return k
}

// try sends a request as the admin; the status is 0 when none came back.
func (k *kube) try(method, path string, body any) (int, []byte) {
	return k.tryWith(method, path, body, "application/json")
}

// tryWith is try with the body's content type.
func (k *kube) tryWith(method, path string, body any, contentType string) (int, []byte) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			k.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, k.url+path, r)
	if err != nil {
		k.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// must sends a request and fails the test unless the answer is a success; it returns the JSON.
func (k *kube) must(method, path string, body any) map[string]any {
	k.t.Helper()
	code, data := k.try(method, path, body)
	if code < 200 || code > 299 {
		k.t.Fatalf("%s %s = %d: %s", method, path, code, data)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		k.t.Fatalf("%s %s: %v", method, path, err)
	}
	return out
}

// resources maps the kinds an export writes to their REST collections; %s is the namespace.
var resources = map[string]string{
	"ServiceAccount":     "/api/v1/namespaces/%s/serviceaccounts",
	"ConfigMap":          "/api/v1/namespaces/%s/configmaps",
	"ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
	"Role":               "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/roles",
	"RoleBinding":        "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/rolebindings",
	"CronJob":            "/apis/batch/v1/namespaces/%s/cronjobs",
	"Stack":              "/apis/pulumi.com/v1/namespaces/%s/stacks",
	"Update":             "/apis/auto.pulumi.com/v1alpha1/namespaces/%s/updates",
}

// collection is where an object of o's kind is created.
func (k *kube) collection(o map[string]any) string {
	k.t.Helper()
	kind, _ := o["kind"].(string)
	path, ok := resources[kind]
	if !ok {
		k.t.Fatalf("no collection known for kind %q", kind)
	}
	if strings.Contains(path, "%s") {
		ns, _ := o["metadata"].(map[string]any)["namespace"].(string)
		if ns == "" {
			k.t.Fatalf("%s %v has no namespace", kind, o["metadata"])
		}
		path = fmt.Sprintf(path, ns)
	}
	return path
}

// create creates o with strict server-side field validation: an unknown or duplicate field is an
// error, not a warning. It returns the status code and body.
func (k *kube) create(o map[string]any) (int, []byte) {
	return k.try("POST", k.collection(o)+"?fieldValidation=Strict", o)
}

// installCRDs creates the CRDs in the files and waits until each is established.
func (k *kube) installCRDs(files []string) {
	k.t.Helper()
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			k.t.Fatal(err)
		}
		for _, o := range yamlObjects(k.t, data) {
			k.must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", o)
			names = append(names, o["metadata"].(map[string]any)["name"].(string))
		}
	}
	deadline := time.Now().Add(time.Minute)
	for _, name := range names {
		for {
			crd := k.must("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, nil)
			if conditionTrue(crd, "Established") {
				break
			}
			if time.Now().After(deadline) {
				k.t.Fatalf("CRD %s not established after a minute", name)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// conditionTrue tells whether o's status holds the condition typ with status True.
func conditionTrue(o map[string]any, typ string) bool {
	status, _ := o["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ && m["status"] == "True" {
			return true
		}
	}
	return false
}

// can asks the API server (a SubjectAccessReview) whether the service account ns/name may verb
// the resource of group in namespace (cluster-wide when empty).
func (k *kube) can(ns, name, verb, group, resource, namespace string) bool {
	k.t.Helper()
	attrs := map[string]any{"verb": verb, "group": group, "resource": resource}
	if namespace != "" {
		attrs["namespace"] = namespace
	}
	review := k.must("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", map[string]any{
		"apiVersion": "authorization.k8s.io/v1",
		"kind":       "SubjectAccessReview",
		"spec": map[string]any{
			"user":               "system:serviceaccount:" + ns + ":" + name,
			"groups":             []any{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			"resourceAttributes": attrs,
		},
	})
	status, _ := review["status"].(map[string]any)
	return status["allowed"] == true
}

// TestLowPortNeverHandsOutAPortTwice holds the record that keeps two components (or two tests)
// from being told the same port: 300 draws from 10,000 would repeat one almost surely without it.
func TestLowPortNeverHandsOutAPortTwice(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 300; i++ {
		p := lowPort(t)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}
