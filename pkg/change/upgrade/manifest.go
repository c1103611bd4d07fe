package upgrade

import (
	"context"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ClusterOf is what a plan needs of a manifest (stackInput, read from file, of kind): the
// cluster and the cloud to ask, with the token and URL the deploy commands would use; false for
// a node pool (no kubernetes_version) or a kind of no cloud clusterplane knows. It reads the
// manifest through its fields' names, so that no kind's API is named outside the kind's folder.
// A cluster whose cloud cannot be asked (no token) gets a Cloud that says why at every question.
func ClusterOf(file, kind string, stackInput proto.Message) (Cluster, bool) {
	target := stackinput.Target(stackInput).ProtoReflect()
	spec := protofield.At(target, kindfield.TargetSpec)
	if spec == nil || spec.Descriptor().Fields().ByJSONName(kindfield.SpecKubernetesVersion) == nil {
		return Cluster{}, false
	}
	md := protofield.At(target, kindfield.TargetMetadata)
	c := Cluster{File: file, Kind: kind, Name: text(md, sharedv1.CloudResourceMetadataFieldName), Env: text(md, sharedv1.CloudResourceMetadataFieldEnv),
		Goal: protofield.MapValue(md, sharedv1.CloudResourceMetadataFieldAnnotations, GoalAnnotation), ClusterName: text(spec, kindfield.SpecClusterName),
		Region: text(spec, kindfield.SpecRegion), Version: text(spec, kindfield.SpecKubernetesVersion)}
	driver, ok := stackinput.Cloud(stackInput)
	if !ok {
		return Cluster{}, false
	}
	cloud, ownToken, ownURL, _ := stackinput.ProviderConfig(stackInput)
	token, url, err := cloud.Resolve(ownToken, ownURL)
	switch {
	case err != nil:
		c.Cloud = NoCloud{err}
	case token == "":
		c.Cloud = NoCloud{errors.Errorf("no %s API token (providerConfig.apiToken or %s)", cloud.Name, cloud.TokenEnv)}
	default:
		c.Cloud = cloudOf(driver.ID(), url, token, c.Region)
	}
	return c, true
}

// cloudOf is the cloud id to ask, at url with token: a cloud whose upgrades clusterplane cannot
// ask is one that says so at every question, never another cloud's API.
func cloudOf(id cloud.ID, url, token, region string) Cloud {
	switch id {
	case digitalocean.ID:
		return NewDigitalOcean(url, token)
	case civo.ID:
		return NewCivo(url, token, region)
	}
	return NoCloud{errors.Errorf("clusterplane cannot ask cloud %q about upgrades: no upgrade checks of it", id)}
}

// text is m's string or enum field of the JSON name, as a manifest writes it, "" when none.
func text(m protoreflect.Message, jsonName string) string {
	if m == nil {
		return ""
	}
	fd := m.Descriptor().Fields().ByJSONName(jsonName)
	switch {
	case fd == nil:
		return ""
	case fd.Kind() == protoreflect.EnumKind:
		if v := fd.Enum().Values().ByNumber(m.Get(fd).Enum()); v != nil {
			return string(v.Name())
		}
		return ""
	case fd.Kind() == protoreflect.StringKind:
		return m.Get(fd).String()
	}
	return ""
}

// NoCloud is a cloud that cannot be asked, and says why at every question: a cluster without a
// token is a mistake to fix, not a blocked upgrade.
type NoCloud struct{ Err error }

func (n NoCloud) Find(context.Context, string, string, string) (Live, bool, error) {
	return Live{}, false, n.Err
}
func (n NoCloud) Offer(context.Context, Live) (Offer, error) { return Offer{}, n.Err }
func (n NoCloud) Lint(context.Context, Live) ([]Diagnostic, error) {
	return nil, n.Err
}
func (n NoCloud) Kubeconfig(context.Context, Live) ([]byte, error) { return nil, n.Err }
