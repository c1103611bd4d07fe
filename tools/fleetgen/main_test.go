package main

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"

	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/entry"
	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

const (
	token      = "fleetgen-token"
	passphrase = "fleetgen-passphrase"
	project    = "digitaloceankubernetescluster"
)

// savedCluster is a cluster as fakedo.Save writes it, which the test reads the cloud's state
// file by (fleetgen leaves reading it to the loopback cloud).
type savedCluster struct {
	Cluster godo.KubernetesCluster `json:"cluster"`
	CAPEM   []byte                 `json:"caPEM,omitempty"`
}

// deployed is a stack as `clusterplane up` leaves it in a file backend and the loopback cloud,
// reduced to what fleetgen rewrites: the test's base.
type deployed struct {
	state, cloud, manifest string
	ids                    []string // the cloud's and the state's ids, which no copy may hold
	crypter                config.Crypter
}

func deployBase(t *testing.T) deployed {
	t.Helper()
	dir := t.TempDir()
	d := deployed{state: filepath.Join(dir, "state"), cloud: filepath.Join(dir, "cloud.json"), manifest: "../../examples/digitaloceankubernetescluster/minimal.yaml"}
	do := fakedo.New(t, token)
	id, pools, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: token},
		seed.Cluster{Name: "dev-fra1", Region: "fra1", Pools: []seed.Pool{{Count: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := do.Save()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.cloud, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	var cloud struct {
		Clusters map[string]savedCluster `json:"clusters"`
	}
	if err := json.Unmarshal(saved, &cloud); err != nil {
		t.Fatal(err)
	}
	c := cloud.Clusters[id].Cluster
	var nodes []any
	for _, n := range c.NodePools[0].Nodes {
		nodes = append(nodes, map[string]any{"id": n.ID, "dropletId": n.DropletID, "name": n.Name})
		d.ids = append(d.ids, n.ID)
	}
	providerID := "0b7c3d5e-1f2a-4b6c-8d9e-0a1b2c3d4e5f"
	// The stack's mark names the stack by a digest of its key, which no copy may hold; and its
	// backend, here another folder, as bench/fleet.sh copies a base deployed elsewhere.
	mark := stackmark.Of("file:///elsewhere", project+"/dev-fra1")
	d.ids = append(d.ids, id, pools[0], providerID, mark.Stack, mark.Backend)

	data, err := os.ReadFile(d.manifest)
	if err != nil {
		t.Fatal(err)
	}
	target, err := deploytarget.Read(docluster.Kind(), d.manifest, data, "")
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := stackrecord.Manifest(target.Input)
	if err != nil {
		t.Fatal(err)
	}
	d.crypter = config.NewSymmetricCrypterFromPassphrase(passphrase, []byte("fleetsal"))
	check, _ := d.crypter.EncryptValue(context.Background(), "pulumi")
	secret := func(v any) any {
		text, _ := json.Marshal(v)
		c, _ := d.crypter.EncryptValue(context.Background(), string(text))
		return map[string]any{sigKey: secretSig, "ciphertext": c}
	}
	kubeconfig := fmt.Sprintf("clusters:\n- name: do-fra1-dev-fra1\n  cluster:\n    server: %s\n", c.Endpoint)
	urn := "urn:pulumi:dev-fra1::" + project + "::"
	checkpoint := map[string]any{"version": 3, "checkpoint": map[string]any{
		"stack": "organization/" + project + "/dev-fra1",
		"latest": map[string]any{
			"secrets_providers": map[string]any{"type": "passphrase", "state": map[string]any{
				"salt": "v1:" + base64.StdEncoding.EncodeToString([]byte("fleetsal")) + ":" + check}},
			"resources": []any{
				map[string]any{"urn": urn + "pulumi:pulumi:Stack::" + project + "-dev-fra1", "type": "pulumi:pulumi:Stack",
					"outputs": map[string]any{"cluster_id": id, "default_node_pool_id": pools[0], "ipv4_address": c.IPv4,
						stackrecord.GenerationOutput: stackrecord.Generation(target.Input), stackrecord.ManifestOutput: recorded,
						"kubeconfig": secret(kubeconfig)}},
				map[string]any{"urn": urn + "pulumi:providers:digitalocean::dev-fra1", "type": "pulumi:providers:digitalocean",
					"id": providerID, "custom": true, "inputs": map[string]any{"apiEndpoint": do.URL(), "token": secret(token)}},
				map[string]any{"urn": urn + "digitalocean:index/kubernetesCluster:KubernetesCluster::dev-fra1",
					"type": "digitalocean:index/kubernetesCluster:KubernetesCluster", "id": id, "custom": true,
					"provider": urn + "pulumi:providers:digitalocean::dev-fra1::" + providerID,
					"inputs":   map[string]any{"tags": []any{"resource-name:dev-fra1", mark.Tag()}},
					"outputs": map[string]any{"name": "dev-fra1", "clusterUrn": "do:kubernetes:" + id, "ipv4Address": c.IPv4,
						"__meta":   `{"e2bfb730-ecaa-11e6-8f88-34363bc7c4c0":{"create":1800000000000}}`,
						"nodePool": map[string]any{"id": pools[0], "nodeCount": json.Number("2"), "nodes": nodes}}},
			},
		}}}
	for path, v := range map[string]any{
		filepath.Join(d.state, ".pulumi", "stacks", project, "dev-fra1.json"):                         checkpoint,
		filepath.Join(d.state, ".pulumi", "history", project, "dev-fra1", "dev-fra1-17.history.json"): map[string]any{"kind": "update", "result": "succeeded", "endTime": 17},
	} {
		data, err := encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeBlob(path, data); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestEveryCopyHoldsItsOwnNamesAndIdsInTheStateTheSecretsAndTheCloud(t *testing.T) {
	base := deployBase(t)
	out := filepath.Join(t.TempDir(), "fleet")
	fleetCloud := filepath.Join(t.TempDir(), "fleet.json")
	const n = 3
	if err := Generate(Options{Loopback: "digitalocean", State: base.state, Cloud: base.cloud, Manifest: base.manifest, OutCloud: fleetCloud,
		OutManifests: out, N: n, Prefix: "fleet-", Passphrase: passphrase}); err != nil {
		t.Fatal(err)
	}
	cloudData, err := os.ReadFile(fleetCloud)
	if err != nil {
		t.Fatal(err)
	}
	var cloud struct {
		Clusters map[string]savedCluster `json:"clusters"`
		Order    []string                `json:"order"`
	}
	if err := json.Unmarshal(cloudData, &cloud); err != nil {
		t.Fatal(err)
	}
	if len(cloud.Clusters) != n+1 || len(cloud.Order) != n+1 {
		t.Fatalf("the cloud holds %d clusters (%d in order), want the base's and %d copies", len(cloud.Clusters), len(cloud.Order), n)
	}
	// The cloud fakeclouds serves loads it.
	do := fakedo.New(t, token)
	if err := do.Load(cloudData); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for i := 1; i <= n; i++ {
		name := Name("fleet-", i)
		target := readCopyManifest(t, out, name)
		stackFile := filepath.Join(base.state, ".pulumi", "stacks", project, name+".json")
		text, err := os.ReadFile(stackFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range append([]string{"dev-fra1"}, base.ids...) {
			if strings.Contains(string(text), old) {
				t.Errorf("%s still holds %s", name, old)
			}
		}
		if own := stackmark.Of(stackmark.BackendID("file://"+base.state), project+"/"+name).Tag(); !strings.Contains(string(text), own) {
			t.Errorf("%s does not carry the mark an up in its backend sets (%s)", name, own)
		}
		if !strings.Contains(string(text), "e2bfb730-ecaa-11e6-8f88-34363bc7c4c0") {
			t.Errorf("%s lost the provider's timeouts key, no id", name)
		}
		chk, err := decode(text)
		if err != nil {
			t.Fatal(err)
		}
		outputs, _ := stackOutputs(chk)
		if got, want := outputs[stackrecord.GenerationOutput], stackrecord.Generation(target.Input); got != want {
			t.Errorf("%s records generation %v, its manifest's is %s", name, got, want)
		}
		if err := sameManifest(target.Input, outputs[stackrecord.ManifestOutput].(string)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		clusterID := outputs["cluster_id"].(string)
		if other, ok := seen[clusterID]; ok {
			t.Errorf("%s and %s share cluster %s", name, other, clusterID)
		}
		seen[clusterID] = name
		c, ok := cloud.Clusters[clusterID]
		if !ok || c.Cluster.Name != name || c.Cluster.NodePools[0].ID != outputs["default_node_pool_id"] || c.Cluster.IPv4 != outputs["ipv4_address"] {
			t.Fatalf("%s records cluster %s, pool %v, address %v; the cloud holds %+v", name, clusterID,
				outputs["default_node_pool_id"], outputs["ipv4_address"], c.Cluster)
		}
		resources := field(chk, "checkpoint", "latest", "resources").([]any)
		nodes := field(resources[2], "outputs", "nodePool", "nodes").([]any)
		for k, node := range c.Cluster.NodePools[0].Nodes {
			if got := nodes[k].(map[string]any); got["id"] != node.ID || got["dropletId"] != node.DropletID {
				t.Errorf("%s: node %d is %v in the state, %s (droplet %s) in the cloud", name, k, got, node.ID, node.DropletID)
			}
		}
		checkCopyKubeconfig(t, base.crypter, name, clusterID, outputs["kubeconfig"].(map[string]any))
		checkCopyHistory(t, base.state, name)
	}
}

// readCopyManifest reads the copy's manifest as clusterplane would and checks it names the copy.
func readCopyManifest(t *testing.T, out, name string) deploytarget.Target {
	t.Helper()
	manifestPath := filepath.Join(out, name+".yaml")
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	target, err := deploytarget.Read(docluster.Kind(), manifestPath, data, "")
	if err != nil {
		t.Fatal(err)
	}
	if target.Stack != name || !strings.Contains(string(data), "clusterName: "+name) {
		t.Fatalf("%s names stack %s:\n%s", manifestPath, target.Stack, data)
	}
	return target
}

// checkCopyKubeconfig checks the kubeconfig opens with the same passphrase and holds the copy's names.
func checkCopyKubeconfig(t *testing.T, crypter config.Crypter, name, clusterID string, secret map[string]any) {
	t.Helper()
	plain, err := crypter.DecryptValue(context.Background(), secret["ciphertext"].(string))
	if err != nil {
		t.Fatalf("%s: the kubeconfig does not decrypt: %v", name, err)
	}
	if !strings.Contains(plain, "do-fra1-"+name) || !strings.Contains(plain, clusterID) {
		t.Errorf("%s: the kubeconfig is %s", name, plain)
	}
}

// checkCopyHistory checks the last update is in the history as the diy backend keeps it, with its attributes.
func checkCopyHistory(t *testing.T, state, name string) {
	t.Helper()
	history := filepath.Join(state, ".pulumi", "history", project, name, name+"-17.history.json")
	data, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := os.ReadFile(history + ".attrs")
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(data)
	if !strings.Contains(string(attrs), base64.StdEncoding.EncodeToString(sum[:])) {
		t.Errorf("%s: the history record's attributes %s do not hold its MD5", name, attrs)
	}
	if _, err := os.Stat(strings.TrimSuffix(history, ".history.json") + ".checkpoint.json"); err != nil {
		t.Error(err)
	}
}

func TestAWrongPassphraseIsSaidBeforeAnythingIsWritten(t *testing.T) {
	base := deployBase(t)
	out := filepath.Join(t.TempDir(), "fleet")
	err := Generate(Options{Loopback: "digitalocean", State: base.state, Cloud: base.cloud, Manifest: base.manifest, OutManifests: out, N: 1,
		Prefix: "fleet-", Passphrase: "not-it"})
	if err == nil || !strings.Contains(err.Error(), "PULUMI_CONFIG_PASSPHRASE") {
		t.Fatalf("got %v, want the passphrase named", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was made: %v", out, err)
	}
}

func TestACloudWhoseLoopbackWritesNoFleetsIsSaidWithTheCloudsThatDo(t *testing.T) {
	base := deployBase(t)
	for _, id := range []string{"", "civo", "nocloud"} {
		out := filepath.Join(t.TempDir(), "fleet")
		err := Generate(Options{Loopback: cloud.ID(id), State: base.state, Cloud: base.cloud, Manifest: base.manifest,
			OutManifests: out, N: 1, Prefix: "fleet-", Passphrase: passphrase})
		if err == nil || !strings.Contains(err.Error(), "-loopback: digitalocean") {
			t.Errorf("-loopback %q: got %v, want the clouds fleetgen copies named", id, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("-loopback %q: %s was made: %v", id, out, err)
		}
	}
}
