// Package componentprovider serves the four kinds as Pulumi components to programs in every
// Pulumi language: GetSchema answers with the package schema (pkg/pulumi/pulumischema), and Construct
// reads a component's inputs into its kind's stack input, checks them with the programs' rules
// and calls the kind's module.New, the constructor Go programs call. It also serves the custom
// resources the plugin manages itself (Check, Diff, Create, Read, Update, Delete), configured
// by the provider's configuration.
package componentprovider

import (
	"context"
	"strings"
	"sync"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
	"github.com/clusterplane/clusterplane/pkg/release"
	"github.com/pkg/errors"
	sdkplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Server is the clusterplane resource provider: its components and its custom resources.
type Server struct {
	pulumirpc.UnimplementedResourceProviderServer

	engine     *grpc.ClientConn
	version    string
	schema     []byte
	components map[string]Component
	customs    map[string]Custom

	mu     sync.Mutex
	config map[string]string // the provider's variables, set by Configure
}

// New returns the provider of version version serving schema, logging to the engine at engine.
func New(engine *grpc.ClientConn, version string, schema []byte, components []Component, customs ...Custom) *Server {
	s := &Server{engine: engine, version: version, schema: schema, components: map[string]Component{}, customs: map[string]Custom{}}
	for _, k := range components {
		s.components[k.Token] = k
	}
	for _, c := range customs {
		s.customs[c.Token] = c
	}
	return s
}

// GetPluginInfo returns the provider's version.
func (s *Server) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: s.version}, nil
}

// GetSchema returns the package schema.
func (s *Server) GetSchema(_ context.Context, req *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	if v := req.GetVersion(); v != 0 {
		return nil, status.Errorf(codes.InvalidArgument, "schema version %d is not supported", v)
	}
	return &pulumirpc.GetSchemaResponse{Schema: string(s.schema)}, nil
}

// Configure keeps the provider's configuration for the custom resources, and says that Construct
// takes secrets, resource references and output values, which keep an input's dependencies.
func (s *Server) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	s.mu.Lock()
	s.config = req.GetVariables()
	s.mu.Unlock()
	return &pulumirpc.ConfigureResponse{
		AcceptSecrets:   true,
		SupportsPreview: true,
		AcceptResources: true,
		AcceptOutputs:   true,
	}, nil
}

// Construct creates the component req.Type named req.Name. Its inputs are read and checked
// first: a component with a bad input registers nothing.
func (s *Server) Construct(ctx context.Context, req *pulumirpc.ConstructRequest) (*pulumirpc.ConstructResponse, error) {
	k, ok := s.components[req.GetType()]
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "clusterplane has no component %q", req.GetType())
	}
	props, err := sdkplugin.UnmarshalProperties(req.GetInputs(), sdkplugin.MarshalOptions{
		KeepUnknowns:     true,
		KeepSecrets:      true,
		KeepResources:    true,
		KeepOutputValues: true,
	})
	if err != nil {
		return nil, errors.Wrap(err, "read the inputs")
	}
	deps := map[string][]string{}
	for key, d := range req.GetInputDependencies() {
		deps[key] = d.GetUrns()
	}
	in, err := ReadInputs(k.Token, req.GetName(), k.NewStackInput(), props, deps)
	if err != nil {
		return nil, err
	}
	return provider.Construct(ctx, req, s.engine, func(ctx *pulumi.Context, typ, name string, inputs provider.ConstructInputs,
		opts pulumi.ResourceOption) (*provider.ConstructResult, error) {
		ids, err := idOutputs(inputs, in.Outputs)
		if err != nil {
			return nil, err
		}
		// As validate warns a manifest's author: a region, size or version the pinned catalogue
		// lacks is a typo (fra2) or newer than the release; only the cloud refuses it, at up.
		for _, w := range catalogue.WarningsOf(in.StackInput) {
			if err := ctx.Log.Warn(strings.TrimPrefix(w.Path, "spec.")+": "+w.Message, nil); err != nil {
				return nil, errors.Wrap(err, "warn of the catalogue")
			}
		}
		comp, err := k.Construct(ctx, name, in.StackInput, ids, opts)
		if err != nil {
			return nil, err
		}
		// Not provider.NewConstructResult: it reads only the component struct's own tagged
		// fields, and a kind's component embeds its outputs (apis/clusterplane/stackoutputs).
		outputs, err := component.Outputs(comp)
		if err != nil {
			return nil, err
		}
		return &provider.ConstructResult{URN: comp.URN(), State: outputs}, nil
	})
}

// idOutputs returns, for each reference field given as an output, its `value` as a string
// output that keeps the input's dependencies and secrecy.
func idOutputs(inputs provider.ConstructInputs, fields map[string]string) (map[string]pulumi.StringInput, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	values, err := inputs.Map()
	if err != nil {
		return nil, errors.Wrap(err, "read the inputs")
	}
	ids := map[string]pulumi.StringInput{}
	for field, key := range fields {
		ids[field] = pulumi.ToOutput(values[key]).ApplyT(func(v any) (string, error) {
			obj, _ := v.(map[string]any)
			if id, ok := obj[sharedv1.StringValueOrRefFieldValue].(string); ok && id != "" {
				return id, nil
			}
			return "", errors.Errorf("%s: an output here must be an object whose value is a non-empty id, "+
				"e.g. {value: cluster.clusterId}; a valueFrom stack reference must be known before deployment", key)
		}).(pulumi.StringOutput)
	}
	return ids, nil
}

// Cancel has nothing to stop: Construct returns when its children are registered.
func (s *Server) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// Serve runs the clusterplane plugin (the components and the custom resources) serving schema,
// for the engine that started the process: pulumi-resource-clusterplane does, and so does
// clusterplane when the engine starts it under that name.
func Serve(schema []byte, components []Component, customs ...Custom) error {
	schema, err := pulumischema.Stamp(schema)
	if err != nil {
		return err
	}
	return provider.Main(plugin.Package, func(host *provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return New(host.EngineConn(), release.Version(), schema, components, customs...), nil
	})
}
