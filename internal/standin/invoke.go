package standin

import (
	"context"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/pkg/errors"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// The functions the stand-in serves: the ones iac/pulumi/digitaloceankubernetescluster/module
// calls (version.go). Civo's module calls none.
const (
	getKubernetesCluster  = "digitalocean:index/getKubernetesCluster:getKubernetesCluster"
	getKubernetesVersions = "digitalocean:index/getKubernetesVersions:getKubernetesVersions"
)

// Invoke answers the DigitalOcean functions from the fake cloud and the offered versions.
func (p *Provider) Invoke(_ context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	args, _, err := plainProps(req.GetArgs())
	if err != nil {
		return nil, err
	}
	var result map[string]any
	var secret map[string]bool
	switch tok := req.GetTok(); {
	case tok == getKubernetesCluster && p.Package == "digitalocean":
		result, err = p.lookupCluster(args)
		secret = sensitive[doCluster]
	case tok == getKubernetesVersions && p.Package == "digitalocean":
		result = p.kubernetesVersions(args)
	default:
		return nil, errors.Errorf("the %s stand-in does not serve function %q", p.Package, tok)
	}
	if err != nil {
		return nil, err
	}
	ret, err := marshal(result, secret)
	return &pulumirpc.InvokeResponse{Return: ret}, err
}

// lookupCluster is getKubernetesCluster: the cloud's cluster of that name in the data source's
// shape. None fails with the provider's own words, by which the module tells "no cluster yet"
// from a failure.
func (p *Provider) lookupCluster(args map[string]any) (map[string]any, error) {
	name, _ := args["name"].(string)
	p.mu.Lock()
	defer p.mu.Unlock()
	cloud, err := ReadCloud(p.Cloud)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(cloud))
	for id := range cloud {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if terraformResources[cloud[id].Type] != doCluster || cloud[id].Outputs["name"] != name {
			continue
		}
		r, err := p.load(doCluster, id)
		if err != nil {
			return nil, err
		}
		out := map[string]any{}
		for _, k := range []string{"id", "name", "region", "version", "status", "endpoint", "ipv4Address", "clusterSubnet",
			"serviceSubnet", "vpcUuid", "createdAt", "updatedAt", "autoUpgrade", "surgeUpgrade", "ha", "tags", "kubeConfigs"} {
			if v, ok := r.Outputs[k]; ok {
				out[k] = v
			}
		}
		// The data source names some attributes unlike the resource: lists where the resource
		// has one block, urn for clusterUrn.
		out["urn"] = r.Outputs["clusterUrn"]
		if pool, ok := r.Outputs["nodePool"]; ok {
			out["nodePools"] = []any{pool}
		}
		if mp, ok := r.Outputs["maintenancePolicy"]; ok {
			out["maintenancePolicies"] = []any{mp}
		}
		return out, nil
	}
	return nil, errors.Errorf("Error retrieving Kubernetes cluster: Unable to find cluster with name: %s", name)
}

// kubernetesVersions is getKubernetesVersions: the offered slugs that start with versionPrefix,
// newest first as DigitalOcean lists them, and the newest as latestVersion ("" for none).
func (p *Provider) kubernetesVersions(args map[string]any) map[string]any {
	prefix, _ := args["versionPrefix"].(string)
	var valid []string
	for _, v := range p.DOVersions {
		if v = strings.TrimSpace(v); v != "" && strings.HasPrefix(v, prefix) {
			valid = append(valid, v)
		}
	}
	sort.Slice(valid, func(i, j int) bool {
		less, _ := kubeversion.Less(valid[j], valid[i])
		return less
	})
	latest := ""
	if len(valid) > 0 {
		latest = valid[0]
	}
	out := map[string]any{"id": "kubernetes-versions", "latestVersion": latest, "validVersions": valid}
	if prefix != "" {
		out["versionPrefix"] = prefix
	}
	return out
}
