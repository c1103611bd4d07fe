// Package standin is a stand-in for the pinned DigitalOcean (pulumi-digitalocean 4.57.0) and
// Civo (pulumi-civo 2.4.8) provider plugins, which cannot be downloaded here, so that end-to-end
// tests can run the real Pulumi engine offline.
//
// What it proves: that the Pulumi engine and our code behave — the resources our modules
// register, options such as protect and ignoreChanges, aliases, secrets, refresh and drift.
//
// What it cannot prove: what the real providers' Diff and API calls do. Its Diff follows the
// pinned providers' Terraform facts recorded in pkg/effects (ForceNew replaces, an
// Optional+Computed attribute no longer sent keeps its value, a lower DigitalOcean version
// replaces), nothing more: no CustomizeDiff beyond that, no validation, no API errors (a Civo pool
// size change updates here where the real provider fails at apply), no computed values inside
// lists. The cloud is a directory of JSON files that tests may edit.
//
// Environment: CLUSTERPLANE_STANDIN_CLOUD (CloudEnv, required) names the cloud's directory;
// CLUSTERPLANE_STANDIN_DO_VERSIONS (DOVersionsEnv) the Kubernetes versions DigitalOcean offers;
// CLUSTERPLANE_STANDIN_DELAY (DelayEnv, a Go duration such as "2s") makes every Create answer
// that much later, the resource already in the cloud, as a real provider waits for a new cluster
// to be running: a test can kill the engine while a create is in flight.
package standin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/effects"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// Versions are the pinned versions the stand-ins answer as, by package.
var Versions = map[string]string{
	"digitalocean": "4.57.0",
	"civo":         "2.4.8",
}

// DOVersionsEnv lists the DigitalOcean Kubernetes version slugs getKubernetesVersions offers,
// comma-separated; DefaultDOVersions when unset.
const DOVersionsEnv = "CLUSTERPLANE_STANDIN_DO_VERSIONS"

// DefaultDOVersions are the slugs offered when DOVersionsEnv is unset.
const DefaultDOVersions = "1.30.9-do.0,1.31.1-do.5,1.31.9-do.2,1.32.2-do.0,1.33.1-do.0"

// DelayEnv is how long each Create waits, once the cloud holds the new resource, before it
// answers (a Go duration; none when unset).
const DelayEnv = "CLUSTERPLANE_STANDIN_DELAY"

// Provider serves one package's resources and functions from the fake cloud in Cloud.
type Provider struct {
	pulumirpc.UnimplementedResourceProviderServer

	// Package and Version are the package served ("digitalocean") and its pinned version.
	Package, Version string
	// Cloud is the directory holding one <id>.json per resource.
	Cloud string
	// DOVersions are the Kubernetes version slugs DigitalOcean offers.
	DOVersions []string
	// Now is the clock, for creation and expiry times.
	Now func() time.Time
	// Delay is how long Create waits, the resource stored, before it answers (see DelayEnv).
	Delay time.Duration

	// mu serialises the cloud's files within this plugin process: the engine calls in parallel.
	mu sync.Mutex
}

// New returns the stand-in for pkg ("digitalocean" or "civo") over the fake cloud in dir.
func New(pkg, dir string) (*Provider, error) {
	version, ok := Versions[pkg]
	if !ok {
		return nil, errors.Errorf("standin: no stand-in for package %q (want digitalocean or civo)", pkg)
	}
	if dir == "" {
		return nil, errors.Errorf("standin: %s is not set: the %s stand-in keeps its resources in that directory", CloudEnv, pkg)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errors.Wrapf(err, "standin: create the fake cloud %s", dir)
	}
	return &Provider{
		Package: pkg, Version: version, Cloud: dir,
		DOVersions: strings.Split(DefaultDOVersions, ","),
		Now:        time.Now,
	}, nil
}

// Main serves the stand-in plugin of pkg ("civo", "digitalocean") to the engine that started the
// process, and exits 1 when it cannot.
func Main(pkg string) {
	err := provider.Main(pkg, func(*provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return FromEnv(pkg)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// FromEnv returns the stand-in for pkg configured by CloudEnv and DOVersionsEnv.
func FromEnv(pkg string) (*Provider, error) {
	p, err := New(pkg, os.Getenv(CloudEnv))
	if err != nil {
		return nil, err
	}
	if v := os.Getenv(DOVersionsEnv); v != "" {
		p.DOVersions = strings.Split(v, ",")
	}
	if v := os.Getenv(DelayEnv); v != "" {
		if p.Delay, err = time.ParseDuration(v); err != nil {
			return nil, errors.Wrapf(err, "standin: %s", DelayEnv)
		}
	}
	return p, nil
}

// GetPluginInfo answers with the pinned version, which the engine matches against state.
func (p *Provider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: p.Version}, nil
}

// GetSchema is a minimal valid package schema: the YAML language host asks for one, and our
// Go programs use the real SDKs' types.
func (p *Provider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	// The provider's configuration is all a program names directly (Pulumi YAML type-checks
	// `pulumi:providers:<name>` properties against it); the resources are the components' own.
	inputs := map[string]any{}
	for _, name := range providerInputs[p.Package] {
		prop := map[string]any{"type": "string"}
		if name == "token" {
			prop["secret"] = true
		}
		inputs[name] = prop
	}
	data, err := json.Marshal(map[string]any{"name": p.Package, "version": p.Version,
		"provider": map[string]any{"inputProperties": inputs}})
	return &pulumirpc.GetSchemaResponse{Schema: string(data)}, err
}

// providerInputs are the string settings of the pinned providers (their schemas' provider
// inputProperties; the numeric retry settings of DigitalOcean's are left out).
var providerInputs = map[string][]string{
	"digitalocean": {"token", "apiEndpoint", "spacesAccessId", "spacesEndpoint", "spacesSecretKey"},
	"civo":         {"token", "apiEndpoint", "credentialsFile", "region"},
}

// CheckConfig accepts any provider configuration: tokens are never used.
func (p *Provider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

// DiffConfig reports changed configuration keys as updates: a bridged provider's configuration
// never replaces its resources.
func (p *Provider) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, _, err := plainProps(req.GetOlds())
	if err != nil {
		return nil, err
	}
	news, _, err := plainProps(req.GetNews())
	if err != nil {
		return nil, err
	}
	var changes []change
	for _, k := range keys(olds, news) {
		if c, ok := compare(k, effects.Attribute{}, olds[k], news[k]); ok {
			changes = append(changes, c)
		}
	}
	return diffResponse(changes), nil
}

// Configure accepts any configuration, and secrets and resource references as the bridged
// providers do.
func (p *Provider) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true, AcceptResources: true, SupportsPreview: true}, nil
}

// Check returns the news as the inputs: the stand-in validates nothing (providerschema's tests
// hold the inputs to the pinned schemas).
func (p *Provider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	if _, err := p.terraformResource(req.GetType(), req.GetUrn()); err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

// Diff compares the news with the state as the pinned providers' facts say (see diff).
func (p *Provider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	tf, err := p.terraformResource(req.GetType(), req.GetUrn())
	if err != nil {
		return nil, err
	}
	olds, oldInputs, news, err := diffArgs(req.GetOlds(), req.GetOldInputs(), req.GetNews())
	if err != nil {
		return nil, err
	}
	return diffResponse(diff(tf, olds, oldInputs, news)), nil
}

// Create stores the inputs as a new resource with what the cloud computes, then waits Delay
// before it answers. In a preview it stores nothing and reports what only the cloud knows as
// unknown.
func (p *Provider) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	res, err := p.create(req)
	if err == nil && !req.GetPreview() && p.Delay > 0 {
		select {
		case <-time.After(p.Delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return res, err
}

func (p *Provider) create(req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	tf, err := p.terraformResource(req.GetType(), req.GetUrn())
	if err != nil {
		return nil, err
	}
	inputs, secret, err := plainProps(req.GetProperties())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id := newID(tf)
	outputs := cloneMap(inputs)
	complete(tf, id, outputs, p.Now())
	if req.GetPreview() {
		props, err := marshal(previewOutputs(inputs, outputs).(map[string]any), p.secrets(tf, secret))
		return &pulumirpc.CreateResponse{Properties: props}, err
	}
	if err := p.refuseMissingCluster(tf, inputs); err != nil {
		return nil, err
	}
	if err := WriteResource(p.Cloud, id, Resource{Type: req.GetType(), Inputs: inputs, Outputs: outputs}); err != nil {
		return nil, err
	}
	props, err := marshal(outputs, p.secrets(tf, secret))
	return &pulumirpc.CreateResponse{Id: id, Properties: props}, err
}

// Read returns the cloud's resource as it is now, outputs and inputs, so that a refresh sees
// what changed behind the engine's back; an empty id when the cloud has no such resource.
func (p *Provider) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	tf, err := p.terraformResource(req.GetType(), req.GetUrn())
	if err != nil {
		return nil, err
	}
	_, stateSecret, err := plainProps(req.GetProperties())
	if err != nil {
		return nil, err
	}
	_, inputSecret, err := plainProps(req.GetInputs())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r, err := p.load(tf, req.GetId())
	if errors.Is(err, os.ErrNotExist) {
		return &pulumirpc.ReadResponse{}, nil
	} else if err != nil {
		return nil, err
	}
	props, err := marshal(r.Outputs, p.secrets(tf, stateSecret))
	if err != nil {
		return nil, err
	}
	inputs, err := marshal(currentInputs(r), inputSecret)
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: props, Inputs: inputs}, err
}

// Update sends what changed, as a provider's API call does: each changed input (by the same diff
// as Diff) is set on the cloud's resource as it is now, so what the cloud changed elsewhere (an
// autoscaler's node count the module ignores) stays. In a preview it works on the state instead
// and stores nothing.
func (p *Provider) Update(_ context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	tf, err := p.terraformResource(req.GetType(), req.GetUrn())
	if err != nil {
		return nil, err
	}
	olds, oldInputs, news, err := diffArgs(req.GetOlds(), req.GetOldInputs(), req.GetNews())
	if err != nil {
		return nil, err
	}
	_, secret, err := plainProps(req.GetNews())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Resource{Type: req.GetType(), Outputs: olds}
	if !req.GetPreview() {
		if r, err = readResource(p.Cloud, req.GetId()); err != nil {
			return nil, errors.Wrapf(err, "update %s: the cloud has no such resource", req.GetId())
		}
	}
	for _, c := range diff(tf, olds, oldInputs, news) {
		if nv, ok := getPath(news, c.path); ok && nv != nil {
			setPath(r.Outputs, c.path, clone(nv))
		} else {
			deletePath(r.Outputs, c.path)
		}
	}
	r.Inputs = news
	if tf == doCluster {
		r.Outputs["updatedAt"] = p.Now().UTC().Format(time.RFC3339)
	}
	complete(tf, req.GetId(), r.Outputs, p.Now())
	if !req.GetPreview() {
		if err := WriteResource(p.Cloud, req.GetId(), r); err != nil {
			return nil, err
		}
	}
	props, err := marshal(r.Outputs, p.secrets(tf, secret))
	return &pulumirpc.UpdateResponse{Properties: props}, err
}

// Delete removes the resource from the cloud; one already gone is deleted.
func (p *Provider) Delete(_ context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	tf, err := p.terraformResource(req.GetType(), req.GetUrn())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if tf == civoFirewall {
		if err := p.refuseFirewallInUse(req.GetId()); err != nil {
			return nil, err
		}
	}
	if err := os.Remove(resourcePath(p.Cloud, req.GetId())); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, errors.Wrap(err, "delete from the fake cloud")
	}
	return &emptypb.Empty{}, nil
}

// Cancel has nothing to stop: every call finishes at once.
func (p *Provider) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// load reads a resource and lets the cloud catch up with an edit made behind its back (a node
// count set by a test gets its nodes), storing the result so that later reads agree.
func (p *Provider) load(tf, id string) (Resource, error) {
	r, err := readResource(p.Cloud, id)
	if err != nil {
		return r, err
	}
	before := cloneMap(r.Outputs)
	complete(tf, id, r.Outputs, p.Now())
	if !equal(before, r.Outputs) {
		err = WriteResource(p.Cloud, id, r)
	}
	return r, err
}

// terraformResource is the Terraform resource behind a type token of this package. The type
// comes from the request, or from the URN for engines that send only that.
func (p *Provider) terraformResource(typ, urn string) (string, error) {
	if typ == "" {
		if parts := strings.Split(urn, "::"); len(parts) >= 3 {
			types := strings.Split(parts[2], "$")
			typ = types[len(types)-1]
		}
	}
	tf, ok := terraformResources[typ]
	if !ok || !strings.HasPrefix(typ, p.Package+":") {
		return "", errors.Errorf("the %s stand-in does not serve resource type %q", p.Package, typ)
	}
	return tf, nil
}

// secrets are the output keys to send as secrets: those whose inputs were, and those the real
// provider marks Sensitive.
func (p *Provider) secrets(tf string, fromInputs map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range fromInputs {
		out[k] = true
	}
	for k := range sensitive[tf] {
		out[k] = true
	}
	return out
}

// refuseMissingCluster fails a node pool whose cluster the cloud does not have, as the API would.
func (p *Provider) refuseMissingCluster(tf string, inputs map[string]any) error {
	if tf != doNodePool && tf != civoNodePool {
		return nil
	}
	id, _ := inputs["clusterId"].(string)
	if _, err := readResource(p.Cloud, id); err != nil {
		return errors.Errorf("create node pool: cluster %q not found (404)", id)
	}
	return nil
}

// refuseFirewallInUse fails deleting a Civo firewall a cluster still uses: Civo refuses it, and
// the module relies on the cluster moving to a new firewall first.
func (p *Provider) refuseFirewallInUse(id string) error {
	cloud, err := ReadCloud(p.Cloud)
	if err != nil {
		return err
	}
	for clusterID, r := range cloud {
		if terraformResources[r.Type] == civoCluster && r.Outputs["firewallId"] == id {
			return errors.Errorf("delete firewall %s: it is in use by cluster %s", id, clusterID)
		}
	}
	return nil
}

// diffArgs unmarshals a Diff's or Update's olds, old inputs and news.
func diffArgs(o, oi, n *structpb.Struct) (olds, oldInputs, news map[string]any, err error) {
	if olds, _, err = plainProps(o); err != nil {
		return
	}
	if oldInputs, _, err = plainProps(oi); err != nil {
		return
	}
	news, _, err = plainProps(n)
	return
}

// currentInputs are the inputs last sent with the values the cloud holds now, to one level into
// objects, as the bridge extracts inputs from the state it read.
func currentInputs(r Resource) map[string]any {
	out := cloneMap(r.Inputs)
	for k, v := range out {
		now, ok := r.Outputs[k]
		if !ok {
			continue
		}
		obj, isObj := v.(map[string]any)
		nowObj, nowIsObj := now.(map[string]any)
		if !isObj || !nowIsObj {
			out[k] = clone(now)
			continue
		}
		for inner := range obj {
			if nv, ok := nowObj[inner]; ok {
				obj[inner] = clone(nv)
			}
		}
	}
	return out
}

// previewOutputs are the outputs of a preview's create: the inputs as sent, and what only the
// cloud can know (ids, addresses, nodes) unknown.
func previewOutputs(inputs, outputs any) any {
	in, inIsObj := inputs.(map[string]any)
	out, outIsObj := outputs.(map[string]any)
	if !inIsObj || !outIsObj {
		if inputs != nil {
			return inputs
		}
		return unknown{}
	}
	res := map[string]any{}
	for k, v := range out {
		if iv, ok := in[k]; ok {
			res[k] = previewOutputs(iv, v)
		} else {
			res[k] = previewOutputs(nil, v)
		}
	}
	return res
}
