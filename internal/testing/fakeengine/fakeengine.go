// Package fakeengine stands in for the Pulumi engine and its resource monitor over real gRPC, so
// that a component provider's Construct can be tested offline: it records every resource
// registered and every log line, answers invokes from functions the test gives, and hands out
// URNs and ids as the engine would name them.
package fakeengine

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// Project and Stack name the fake stack.
const (
	Project = "project"
	Stack   = "stack"
)

// InvokeFunc answers an invoke of a provider function with its result or its failures.
type InvokeFunc func(args map[string]any) (map[string]any, []*pulumirpc.CheckFailure)

// Options are the fake cloud's answers.
type Options struct {
	// Invokes answer provider functions by token.
	Invokes map[string]InvokeFunc
	// StackOutputs are the outputs of every stack a stack reference reads.
	StackOutputs map[string]any
}

// Engine is a running fake engine and resource monitor.
type Engine struct {
	// MonitorAddr is where the monitor listens, for ConstructRequest.MonitorEndpoint.
	MonitorAddr string
	// Conn is a client connection to the engine service, for the provider's log.
	Conn *grpc.ClientConn

	mu         sync.Mutex
	registered []*pulumirpc.RegisterResourceRequest
	urns       map[string]string // URN of each registered resource by name and type
	types      map[string]string // qualified type of each registered URN
	outputs    map[string]*structpb.Struct
	logs       []string
	opts       Options
	invoked    []string
	stacksRead []string
}

// Start starts an engine and a monitor that answer as opts say, and stops them when the test ends.
func Start(t testing.TB, opts Options) *Engine {
	t.Helper()
	e := &Engine{urns: map[string]string{}, types: map[string]string{}, outputs: map[string]*structpb.Struct{}, opts: opts}
	monitor := grpc.NewServer()
	pulumirpc.RegisterResourceMonitorServer(monitor, &monitorServer{e: e})
	e.MonitorAddr = serve(t, monitor)
	engine := grpc.NewServer()
	pulumirpc.RegisterEngineServer(engine, &engineServer{e: e})
	conn, err := grpc.NewClient(serve(t, engine), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	e.Conn = conn
	t.Cleanup(func() { _ = conn.Close() })
	return e
}

// Serve serves s on a local port until the test ends and returns its address.
func Serve(t testing.TB, register func(*grpc.Server)) string {
	t.Helper()
	s := grpc.NewServer()
	register(s)
	return serve(t, s)
}

func serve(t testing.TB, s *grpc.Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

// Registered returns the register requests so far, in order.
func (e *Engine) Registered() []*pulumirpc.RegisterResourceRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*pulumirpc.RegisterResourceRequest(nil), e.registered...)
}

// Find returns the registered resource of type typ named name, or nil.
func (e *Engine) Find(typ, name string) *pulumirpc.RegisterResourceRequest {
	for _, r := range e.Registered() {
		if r.GetType() == typ && r.GetName() == name {
			return r
		}
	}
	return nil
}

// URN returns the URN the engine gave the resource of type typ named name, or "".
func (e *Engine) URN(typ, name string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.urns[typ+"::"+name]
}

// Outputs returns the outputs registered for the component with URN urn.
func (e *Engine) Outputs(urn string) *structpb.Struct {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.outputs[urn]
}

// Logs returns every message the provider logged.
func (e *Engine) Logs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.logs...)
}

// StacksRead returns the names of the stacks read by stack references, in order.
func (e *Engine) StacksRead() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.stacksRead...)
}

// Invoked returns the tokens of the functions invoked, in order.
func (e *Engine) Invoked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.invoked...)
}

// ProviderRef registers a provider of package pkg named name, as a program that creates one and
// passes it in `providers` would, and returns its reference for ConstructRequest.Providers.
func (e *Engine) ProviderRef(pkg, name string) string {
	urn := e.register(&pulumirpc.RegisterResourceRequest{Type: "pulumi:providers:" + pkg, Name: name, Custom: true})
	return urn + "::" + name + "-id"
}

// register records req and returns the URN of the resource.
func (e *Engine) register(req *pulumirpc.RegisterResourceRequest) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	typ := req.GetType()
	if parent, ok := e.types[req.GetParent()]; ok {
		typ = parent + "$" + typ
	}
	urn := fmt.Sprintf("urn:pulumi:%s::%s::%s::%s", Stack, Project, typ, req.GetName())
	e.types[urn] = typ
	e.urns[req.GetType()+"::"+req.GetName()] = urn
	e.registered = append(e.registered, proto.Clone(req).(*pulumirpc.RegisterResourceRequest))
	return urn
}

type monitorServer struct {
	pulumirpc.UnimplementedResourceMonitorServer
	e *Engine
}

// SupportsFeature says yes to what the SDK needs to send secrets and resource references as such.
func (m *monitorServer) SupportsFeature(_ context.Context, req *pulumirpc.SupportsFeatureRequest) (*pulumirpc.SupportsFeatureResponse, error) {
	switch req.GetId() {
	case "secrets", "resourceReferences":
		return &pulumirpc.SupportsFeatureResponse{HasSupport: true}, nil
	}
	return &pulumirpc.SupportsFeatureResponse{}, nil
}

// RegisterResource answers with the resource's inputs as its outputs: what a deployment that
// changed nothing returns.
func (m *monitorServer) RegisterResource(_ context.Context, req *pulumirpc.RegisterResourceRequest) (*pulumirpc.RegisterResourceResponse, error) {
	urn := m.e.register(req)
	resp := &pulumirpc.RegisterResourceResponse{Urn: urn, Object: req.GetObject()}
	if req.GetCustom() {
		resp.Id = req.GetName() + "-id"
	}
	return resp, nil
}

func (m *monitorServer) RegisterResourceOutputs(_ context.Context, req *pulumirpc.RegisterResourceOutputsRequest) (*emptypb.Empty, error) {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	m.e.outputs[req.GetUrn()] = req.GetOutputs()
	return &emptypb.Empty{}, nil
}

// Invoke answers getResource (which the SDK calls to rehydrate a provider passed by reference)
// and the functions the test gave.
func (m *monitorServer) Invoke(_ context.Context, req *pulumirpc.ResourceInvokeRequest) (*pulumirpc.ResourceInvokeResponse, error) {
	m.e.mu.Lock()
	m.e.invoked = append(m.e.invoked, req.GetTok())
	m.e.mu.Unlock()
	args := req.GetArgs().AsMap()
	if req.GetTok() == "pulumi:pulumi:getResource" {
		urn, _ := args["urn"].(string)
		name := urn[strings.LastIndex(urn, "::")+2:]
		ret, err := structpb.NewStruct(map[string]any{"urn": urn, "id": name + "-id", "state": map[string]any{}})
		return &pulumirpc.ResourceInvokeResponse{Return: ret}, err
	}
	f, ok := m.e.opts.Invokes[req.GetTok()]
	if !ok {
		return nil, fmt.Errorf("fakeengine: no answer for invoke %s", req.GetTok())
	}
	result, failures := f(args)
	if len(failures) > 0 {
		return &pulumirpc.ResourceInvokeResponse{Failures: failures}, nil
	}
	ret, err := structpb.NewStruct(result)
	return &pulumirpc.ResourceInvokeResponse{Return: ret}, err
}

// ReadResource answers stack references with Options.StackOutputs; it reads nothing else.
func (m *monitorServer) ReadResource(_ context.Context, req *pulumirpc.ReadResourceRequest) (*pulumirpc.ReadResourceResponse, error) {
	if req.GetType() != "pulumi:pulumi:StackReference" {
		return nil, fmt.Errorf("fakeengine: cannot read a %s", req.GetType())
	}
	urn := m.e.register(&pulumirpc.RegisterResourceRequest{Type: req.GetType(), Name: req.GetName(), Parent: req.GetParent()})
	name, _ := req.GetProperties().AsMap()["name"].(string)
	m.e.mu.Lock()
	m.e.stacksRead = append(m.e.stacksRead, name)
	m.e.mu.Unlock()
	props, err := structpb.NewStruct(map[string]any{"name": name, "outputs": m.e.opts.StackOutputs, "secretOutputNames": []any{}})
	return &pulumirpc.ReadResourceResponse{Urn: urn, Properties: props}, err
}

func (m *monitorServer) SignalAndWaitForShutdown(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

type engineServer struct {
	pulumirpc.UnimplementedEngineServer
	e *Engine
}

func (s *engineServer) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.e.logs = append(s.e.logs, req.GetSeverity().String()+": "+req.GetMessage())
	return &emptypb.Empty{}, nil
}

func (s *engineServer) GetRootResource(context.Context, *pulumirpc.GetRootResourceRequest) (*pulumirpc.GetRootResourceResponse, error) {
	return &pulumirpc.GetRootResourceResponse{}, nil
}

func (s *engineServer) SetRootResource(context.Context, *pulumirpc.SetRootResourceRequest) (*pulumirpc.SetRootResourceResponse, error) {
	return &pulumirpc.SetRootResourceResponse{}, nil
}
