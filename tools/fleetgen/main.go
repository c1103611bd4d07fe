// Command fleetgen makes a fleet of clusters "already deployed" from one that was: given a stack
// `clusterplane up` deployed into a local file backend against a loopback cloud (tools/fakeclouds
// -<cloud>-state), it writes N copies of it, each as `clusterplane up` would have left it: the
// manifest (metadata.name and spec.clusterName <prefix>NNNN), the stack's mark, the stack's checkpoint and its last
// history record in the backend, and the cluster with its pools in the cloud's state file. It
// names no cloud: the loopback cloud of -loopback (pkg/loopback/fakeclouds, its Fleet) says which
// kind and resource the cluster is and how its state file holds clusters. Every name, URN, cloud id and recorded
// output is rewritten consistently, secrets included (decrypted with PULUMI_CONFIG_PASSPHRASE and
// encrypted again under the same salt), and the generation and manifest outputs are those of the
// copy's manifest. bench/fleet.sh measures status, drift, preview and up on such fleets: deploying
// 1,000 stacks through the engine takes most of an hour, writing them a few seconds.
package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

func main() {
	var o Options
	flag.StringVar(&o.State, "state", "", "the local file backend's folder (PULUMI_BACKEND_URL=file://FOLDER) holding the deployed stack; the copies are written beside it")
	flag.Func("loopback", "the loopback cloud the stack was deployed on, by its driver's ID: "+strings.Join(fleetClouds(), ", "),
		func(id string) error { o.Loopback = cloud.ID(id); return nil })
	flag.StringVar(&o.Cloud, "cloud", "", "the loopback cloud's state file (fakeclouds -<cloud>-state) holding the stack's cluster")
	flag.StringVar(&o.Manifest, "manifest", "", "the deployed stack's manifest")
	flag.StringVar(&o.OutCloud, "out-cloud", "", "the cloud state file to write: the cloud's clusters and the copies' (default: -cloud, rewritten)")
	flag.StringVar(&o.OutManifests, "out", "", "the folder to write the copies' manifests to, <prefix>NNNN.yaml")
	flag.IntVar(&o.N, "n", 0, "how many copies")
	flag.StringVar(&o.Prefix, "prefix", "fleet-", "the copies' names: <prefix>0001, ...")
	flag.Parse()
	if o.Loopback == "" || o.State == "" || o.Cloud == "" || o.Manifest == "" || o.OutManifests == "" || o.N < 1 {
		fmt.Fprintln(os.Stderr, "usage: fleetgen -loopback ID -state DIR -cloud FILE -manifest FILE -out DIR -n N [-out-cloud FILE] [-prefix fleet-]\n(PULUMI_CONFIG_PASSPHRASE: the stack's passphrase)")
		os.Exit(2)
	}
	if o.OutCloud == "" {
		o.OutCloud = o.Cloud
	}
	o.Passphrase = os.Getenv("PULUMI_CONFIG_PASSPHRASE")
	start := time.Now()
	if err := Generate(o); err != nil {
		fmt.Fprintf(os.Stderr, "fleetgen: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("fleetgen: %d stacks written in %.2f s\n", o.N, time.Since(start).Seconds())
}

// Options are what Generate reads and writes.
type Options struct {
	// Loopback is the ID of the cloud whose loopback holds the stack's cluster.
	Loopback                                       cloud.ID
	State, Cloud, Manifest, OutCloud, OutManifests string
	N                                              int
	Prefix                                         string
	Passphrase                                     string
}

// fleetClouds are the IDs of the loopback clouds fleetgen can copy clusters of.
func fleetClouds() []string {
	var ids []string
	for _, l := range fakeclouds.All() {
		if l.Fleet != nil {
			ids = append(ids, string(l.ID))
		}
	}
	return ids
}

// fleetOf is the Fleet of the loopback cloud id and the kind of the clusters it copies.
func fleetOf(id cloud.ID) (*fakeclouds.Fleet, kinds.Kind, error) {
	l, ok := fakeclouds.Get(id)
	if !ok || l.Fleet == nil {
		return nil, kinds.Kind{}, errors.Errorf("no loopback cloud %q whose fleets fleetgen writes (-loopback: %s)", id, strings.Join(fleetClouds(), ", "))
	}
	k, ok := registry.Kinds().ByName(l.Fleet.Kind)
	if !ok {
		return nil, kinds.Kind{}, errors.Errorf("the loopback cloud %s copies clusters of kind %s, which the kinds' list lacks", id, l.Fleet.Kind)
	}
	return l.Fleet, k, nil
}

// secretSig marks a secret in a checkpoint (Pulumi's resource.SecretSig).
const (
	sigKey    = "4dabf18193072939515e22adb298388d"
	secretSig = "1b47061264138c4ac30d75fd1eb44270"
)

// base is the deployed stack the copies are made from.
type base struct {
	project, stack, clusterName string
	manifest                    []byte
	checkpoint                  any // decoded, numbers kept as written
	history                     any // its last history record
	historyNanos                string
	fleet                       *fakeclouds.Fleet
	kind                        kinds.Kind
	cloud                       []byte // the cloud's state file
	clusterID                   string
	cluster                     fakecloud.FleetCluster
	crypter                     config.Crypter
	plain                       map[string]string // ciphertext: plaintext
	uuids                       []string          // replaced within strings
	numbers                     []string          // replaced as whole strings
	// mark is the base's stack mark as a label (stackmark.Mark.Label), "" for none; backendID
	// names the backend the copies are written to, which their marks name.
	mark, backendID string
}

// markTags finds the stack marks in a checkpoint's text.
var markTags = regexp.MustCompile(regexp.QuoteMeta(stackmark.Prefix) + `[0-9a-f]{12}-[0-9a-f]{12}`)

// Generate writes o.N copies of the stack of o.Manifest.
func Generate(o Options) error {
	b, err := load(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.OutManifests, 0o755); err != nil {
		return err
	}
	clusters := make([]json.RawMessage, o.N)
	errs := make([]error, o.N)
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				clusters[i], errs[i] = b.write(o, i+1)
			}
		})
	}
	for i := range o.N {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return b.writeCloud(o, clusters)
}

// load reads the deployed stack: its manifest, checkpoint, last history record and cluster.
func load(o Options) (*base, error) {
	b := &base{plain: map[string]string{}}
	var err error
	if b.fleet, b.kind, err = fleetOf(o.Loopback); err != nil {
		return nil, err
	}
	if b.manifest, err = os.ReadFile(o.Manifest); err != nil {
		return nil, err
	}
	t, err := deploytarget.Read(b.kind, o.Manifest, b.manifest, "")
	if err != nil {
		return nil, errors.Wrapf(err, "read %s", o.Manifest)
	}
	b.project, b.stack = t.Project, t.Stack
	stacks := filepath.Join(o.State, ".pulumi", "stacks", b.project)
	data, err := os.ReadFile(filepath.Join(stacks, b.stack+".json"))
	if err != nil {
		return nil, errors.Wrap(err, "read the stack's checkpoint (a gzipped one is not supported)")
	}
	if b.checkpoint, err = decode(data); err != nil {
		return nil, errors.Wrap(err, "decode the stack's checkpoint")
	}
	// The stack's mark, as the base's up set it: each copy carries its own, of the backend it is
	// written to, as an up there would have set it (the base may have been deployed elsewhere and
	// copied).
	if m := stackmark.In(markTags.FindAllString(string(data), -1)); len(m) > 0 {
		b.mark, b.backendID = m[0].Label(), stackmark.BackendID("file://"+o.State)
	}
	if outputs, _ := stackOutputs(b.checkpoint); outputs == nil || outputs[stackrecord.GenerationOutput] != stackrecord.Generation(t.Input) {
		return nil, errors.Errorf("stack %s/%s did not record the generation of %s: deploy it with `clusterplane up` first", b.project, b.stack, o.Manifest)
	}
	if err := b.loadHistory(o.State); err != nil {
		return nil, err
	}
	latest, _ := field(b.checkpoint, "checkpoint", "latest").(map[string]any)
	if latest == nil {
		return nil, errors.Errorf("stack %s/%s holds no deployment", b.project, b.stack)
	}
	if err := b.openSecrets(latest, o.Passphrase); err != nil {
		return nil, err
	}
	resources, _ := latest["resources"].([]any)
	for _, r := range resources {
		r, _ := r.(map[string]any)
		typ, _ := r["type"].(string)
		id, _ := r["id"].(string)
		switch {
		case strings.HasPrefix(typ, "pulumi:providers:") && id != "":
			b.uuids = append(b.uuids, id)
		case typ == b.fleet.ResourceType:
			b.clusterID = id
		}
	}
	if b.clusterID == "" {
		return nil, errors.Errorf("stack %s/%s holds no %s (a resource of type %s)", b.project, b.stack, b.kind.Name, b.fleet.ResourceType)
	}
	if err := b.loadCloud(o.Cloud); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *base) loadHistory(state string) error {
	dir := filepath.Join(state, ".pulumi", "history", b.project, b.stack)
	names, err := filepath.Glob(filepath.Join(dir, b.stack+"-*.history.json"))
	if err != nil || len(names) == 0 {
		return errors.Errorf("stack %s/%s has no history record in %s", b.project, b.stack, dir)
	}
	sort.Strings(names)
	last := names[len(names)-1]
	b.historyNanos = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(last), b.stack+"-"), ".history.json")
	data, err := os.ReadFile(last)
	if err != nil {
		return err
	}
	b.history, err = decode(data)
	return errors.Wrapf(err, "decode %s", last)
}

// openSecrets makes the passphrase's crypter from the checkpoint's salt and decrypts every
// secret once.
func (b *base) openSecrets(latest map[string]any, passphrase string) error {
	sp, _ := latest["secrets_providers"].(map[string]any)
	if sp == nil {
		return nil
	}
	if sp["type"] != "passphrase" {
		return errors.Errorf("the stack's secrets are under %v, not the passphrase", sp["type"])
	}
	state, _ := field(sp, "state", "salt").(string)
	parts := strings.SplitN(state, ":", 3)
	if len(parts) != 3 || parts[0] != "v1" {
		return errors.Errorf("the stack's salt %q is not v1:SALT:CHECK", state)
	}
	salt, err := base64.StdEncoding.DecodeString(parts[1])
	if err != nil {
		return errors.Wrap(err, "decode the stack's salt")
	}
	b.crypter = config.NewSymmetricCrypterFromPassphrase(passphrase, salt)
	if check, err := b.crypter.DecryptValue(context.Background(), parts[2]); err != nil || check != "pulumi" {
		return errors.New("PULUMI_CONFIG_PASSPHRASE does not open the stack's secrets")
	}
	var err2 error
	walk(b.checkpoint, func(secret map[string]any) {
		c, _ := secret["ciphertext"].(string)
		if _, ok := b.plain[c]; ok || err2 != nil {
			return
		}
		p, err := b.crypter.DecryptValue(context.Background(), c)
		if err != nil {
			err2 = errors.Wrap(err, "decrypt a secret of the checkpoint")
		}
		b.plain[c] = p
	})
	return err2
}

// loadCloud reads the stack's cluster from the cloud's state file at path, through the loopback
// cloud, which knows how its state holds clusters.
func (b *base) loadCloud(path string) error {
	var err error
	if b.cloud, err = os.ReadFile(path); err != nil {
		return err
	}
	if b.cluster, err = b.fleet.Cluster(b.cloud, b.clusterID); err != nil {
		return errors.Wrapf(err, "read the stack's cluster from %s", path)
	}
	b.clusterName = b.cluster.Name
	b.uuids = append(b.uuids, b.cluster.IDs...)
	b.numbers = b.cluster.Numbers
	return nil
}

// replacer rewrites the base's names and ids into copy i's.
type replacer struct {
	substr *strings.Replacer
	exact  map[string]string
}

// Name is copy i's stack and cluster name.
func Name(prefix string, i int) string { return fmt.Sprintf("%s%04d", prefix, i) }

func (b *base) replacer(name string, i int) replacer {
	var pairs []string
	for _, id := range b.uuids {
		pairs = append(pairs, id, newUUID(id, name))
	}
	if b.mark != "" {
		pairs = append(pairs, b.mark, stackmark.Of(b.backendID, b.project+"/"+name).Label())
	}
	pairs = append(pairs, b.stack, name)
	if b.clusterName != b.stack {
		pairs = append(pairs, b.clusterName, name)
	}
	exact := map[string]string{}
	for k, d := range b.numbers {
		exact[d] = strconv.Itoa(500000000 + i*100 + k)
	}
	if b.cluster.Address != "" {
		exact[b.cluster.Address] = fmt.Sprintf("198.18.%d.%d", i/250, i%250+1)
	}
	return replacer{substr: strings.NewReplacer(pairs...), exact: exact}
}

func (r replacer) str(s string) string {
	if v, ok := r.exact[s]; ok {
		return v
	}
	return r.substr.Replace(s)
}

// newUUID is a UUID (version 4 in form) made from old and the copy's name: the same each run.
func newUUID(old, name string) string {
	sum := sha256.Sum256([]byte(old + "/" + name))
	sum[6] = sum[6]&0x0f | 0x40
	sum[8] = sum[8]&0x3f | 0x80
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// rewrite is v with every string rewritten by r, and each secret's plaintext rewritten and
// encrypted again. Map keys are left: they are field names, not names or ids.
func (b *base) rewrite(v any, r replacer) (any, error) {
	switch v := v.(type) {
	case string:
		return r.str(v), nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			var err error
			if out[i], err = b.rewrite(e, r); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		if isSecret(v) {
			return b.rewriteSecret(v, r)
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			var err error
			if out[k], err = b.rewrite(e, r); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

func (b *base) rewriteSecret(v map[string]any, r replacer) (any, error) {
	c, _ := v["ciphertext"].(string)
	plain, err := decode([]byte(b.plain[c]))
	if err != nil {
		return nil, errors.Wrap(err, "decode a secret's plaintext")
	}
	if plain, err = b.rewrite(plain, r); err != nil {
		return nil, err
	}
	text, err := encode(plain)
	if err != nil {
		return nil, err
	}
	cipher, err := b.crypter.EncryptValue(context.Background(), string(bytes.TrimSpace(text)))
	if err != nil {
		return nil, err
	}
	return map[string]any{sigKey: secretSig, "ciphertext": cipher}, nil
}

func isSecret(m map[string]any) bool {
	sig, _ := m[sigKey].(string)
	_, ok := m["ciphertext"]
	return sig == secretSig && ok
}

// walk calls f with every secret in v.
func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			walk(e, f)
		}
	case map[string]any:
		if isSecret(v) {
			f(v)
			return
		}
		for _, e := range v {
			walk(e, f)
		}
	}
}

// write writes copy i: its manifest, checkpoint and history record; it returns its cluster.
func (b *base) write(o Options, i int) (json.RawMessage, error) {
	name := Name(o.Prefix, i)
	r := b.replacer(name, i)
	manifest := []byte(r.substr.Replace(string(b.manifest)))
	file := filepath.Join(o.OutManifests, name+".yaml")
	t, err := deploytarget.Read(b.kind, file, manifest, "")
	if err != nil {
		return nil, errors.Wrapf(err, "copy %s", name)
	}
	if t.Stack != name {
		return nil, errors.Errorf("copy %s: its manifest names stack %s", name, t.Stack)
	}
	chk, err := b.rewrite(b.checkpoint, r)
	if err != nil {
		return nil, errors.Wrapf(err, "copy %s", name)
	}
	// The outputs clusterplane compares with the manifest: the copy's own. The recorded manifest
	// is the base's text with the names rewritten, which keeps the spacing protojson chose in the
	// binary that deployed it (it varies from one build to another; a preview shows any change
	// of an output); it must read back as the copy's manifest.
	outputs, _ := stackOutputs(chk)
	if outputs == nil {
		return nil, errors.Errorf("copy %s: the checkpoint has no stack outputs", name)
	}
	recorded, _ := outputs[stackrecord.ManifestOutput].(string)
	if err := sameManifest(t.Input, recorded); err != nil {
		return nil, errors.Wrapf(err, "copy %s", name)
	}
	outputs[stackrecord.GenerationOutput] = stackrecord.Generation(t.Input)
	chkData, err := encode(chk)
	if err != nil {
		return nil, err
	}
	hist, err := b.rewrite(b.history, r)
	if err != nil {
		return nil, err
	}
	histData, err := encode(hist)
	if err != nil {
		return nil, err
	}
	pulumiDir := filepath.Join(o.State, ".pulumi")
	histDir := filepath.Join(pulumiDir, "history", b.project, name)
	stem := filepath.Join(histDir, name+"-"+b.historyNanos)
	for path, data := range map[string][]byte{
		filepath.Join(pulumiDir, "stacks", b.project, name+".json"): chkData,
		stem + ".history.json":    histData,
		stem + ".checkpoint.json": chkData,
	} {
		if err := writeBlob(path, data); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(file, manifest, 0o644); err != nil {
		return nil, err
	}
	return b.copyCluster(r)
}

// copyCluster is the base's cluster with copy r's names and ids.
func (b *base) copyCluster(r replacer) (json.RawMessage, error) {
	v, err := decode(b.cluster.JSON)
	if err != nil {
		return nil, errors.Wrap(err, "decode the stack's cluster")
	}
	if v, err = b.rewrite(v, r); err != nil {
		return nil, err
	}
	return encode(v)
}

// writeCloud writes the cloud's state with the copies' clusters added after its own.
func (b *base) writeCloud(o Options, copies []json.RawMessage) error {
	data, err := b.fleet.Add(b.cloud, b.clusterID, copies)
	if err != nil {
		return errors.Wrap(err, "add the copies to the cloud's state")
	}
	tmp := o.OutCloud + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, o.OutCloud)
}

// stackOutputs is the outputs of the checkpoint's stack resource.
func stackOutputs(chk any) (map[string]any, bool) {
	resources, _ := field(chk, "checkpoint", "latest", "resources").([]any)
	for _, res := range resources {
		res, _ := res.(map[string]any)
		if res["type"] == "pulumi:pulumi:Stack" {
			outputs, ok := res["outputs"].(map[string]any)
			return outputs, ok
		}
	}
	return nil, false
}

// sameManifest fails unless recorded, a clusterplane_manifest output, reads back as input's target.
func sameManifest(input proto.Message, recorded string) error {
	want := apikinds.Target(input)
	got := want.ProtoReflect().New().Interface()
	if err := protojson.Unmarshal([]byte(recorded), got); err != nil {
		return errors.Wrap(err, "read the recorded manifest")
	}
	if !proto.Equal(got, want) {
		return errors.Errorf("the recorded manifest %s is not the manifest's", recorded)
	}
	return nil
}

// writeBlob writes a file of the diy backend with the attributes file gocloud's fileblob keeps
// beside it.
func writeBlob(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	sum := md5.Sum(data)
	attrs := fmt.Sprintf(`{"user.cache_control":"","user.content_disposition":"","user.content_encoding":"","user.content_language":"","user.content_type":"text/plain; charset=utf-8","user.metadata":null,"md5":%q}`,
		base64.StdEncoding.EncodeToString(sum[:]))
	return os.WriteFile(path+".attrs", []byte(attrs), 0o600)
}

func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	return v, d.Decode(&v)
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	err := e.Encode(v)
	return buf.Bytes(), err
}

// field is v's value at keys, nil when any is missing.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		if m == nil {
			return nil
		}
		v = m[k]
	}
	return v
}
