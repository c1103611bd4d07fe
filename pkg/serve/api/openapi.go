package api

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// OpenAPI is the API's OpenAPI 3.1 document, made from Routes and the Go types of the bodies
// (their json tags), so that a route added to Routes is documented without touching this file.
// It is made once: GET /openapi.json serves it on every request. docs/openapi.json is a copy,
// which a test keeps fresh.
func OpenAPI() []byte { return openAPI() }

var openAPI = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(newOpenAPIDoc().document()); err != nil {
		panic("api: the OpenAPI document does not encode: " + err.Error())
	}
	return buf.Bytes()
})

// The document is made of maps, which encoding/json writes with their keys sorted: the same
// routes always make the same bytes.
type jsonObject = map[string]any

func ref(section, name string) jsonObject {
	return jsonObject{"$ref": "#/components/" + section + "/" + name}
}

// openAPIDoc gathers the component schemas as the operations need them.
type openAPIDoc struct {
	schemas jsonObject
	// names are the Go types already made into a component, by their component name.
	names map[reflect.Type]string
}

func newOpenAPIDoc() *openAPIDoc {
	return &openAPIDoc{schemas: jsonObject{}, names: map[reflect.Type]string{}}
}

// errorStatuses are the errors an operation may answer with, each a component response.
var errorStatuses = map[int]struct{ name, code, description string }{
	http.StatusBadRequest: {"ValidationError", "VALIDATION_ERROR", "The body, the query, the path or If-Match is invalid: problems names each field as it was written, " +
		"a query parameter the operation does not take, a key written twice in the body, a path that is not clean ((path))."},
	http.StatusUnauthorized:     {"Unauthenticated", "UNAUTHENTICATED", "No valid bearer token was sent."},
	http.StatusForbidden:        {"Forbidden", "FORBIDDEN", "The caller's role does not have the permission the operation needs (x-clusterplane-permission)."},
	http.StatusNotFound:         {"NotFound", "NOT_FOUND", "No object has that id (or the cluster a node pool names does not exist), or no route has the path."},
	http.StatusMethodNotAllowed: {"MethodNotAllowed", "METHOD_NOT_ALLOWED", "The path does not take the method: Allow lists the methods it takes."},
	http.StatusConflict: {"Conflict", "CONFLICT", "The name is taken, the cluster still has node pools or is protected (deletionProtection), " +
		"or the object (or a new pool's cluster) is being deleted, or (an update) the change would replace the cluster or the pool (a pool's cloud block may carry a rollout block to rotate it instead), " +
		"or (a delete) the object's stack was made again outside the API: the message names it and why."},
	http.StatusPreconditionFailed:    {"PreconditionFailed", "PRECONDITION_FAILED", "The object changed since it was read (If-Match names no current version; a weak ETag never does): read it again (its resource_version) and retry."},
	http.StatusRequestEntityTooLarge: {"BodyTooLarge", "VALIDATION_ERROR", "The body is larger than 1 MiB."},
	http.StatusUnsupportedMediaType:  {"UnsupportedMediaType", "UNSUPPORTED_MEDIA_TYPE", "The body's Content-Type is not application/json (bare, or with charset=utf-8)."},
	http.StatusPreconditionRequired:  {"PreconditionRequired", "PRECONDITION_REQUIRED", "Updates and deletes are conditional: send If-Match with the resource_version read."},
	http.StatusTooManyRequests:       {"RateLimited", "RATE_LIMITED", "The caller sent more requests a second than serve's --rate-limit allows: retry after Retry-After seconds."},
	http.StatusInternalServerError:   {"Internal", "INTERNAL", "The server failed; its log says why."},
	http.StatusServiceUnavailable: {"NotReady", "NOT_READY", "GET /readyz only: the replica cannot serve requests, and the message says which: " +
		"shutting down; the database does not answer (within a second; the server's log has its error); " +
		"or migrations behind: the service's or the queue's tables are at version X, want Y."},
}

// schemaNotes add to the schema reflection makes of a field (TypeName.jsonName) what its Go type
// cannot say: the values allowed, what a free-form field holds, what the server alone writes.
var schemaNotes = map[string]jsonObject{
	"Object.id":               {"format": "uuid", "readOnly": true},
	"Object.cluster_id":       {"format": "uuid", "description": "A node pool's cluster; absent for a cluster."},
	"Object.spec":             {"$ref": "#/components/schemas/Spec", "description": "The spec as the client sent it."},
	"Object.generation":       {"readOnly": true, "description": "Counts the changes of the spec; a controller's observed_generation reaches it once the spec is applied."},
	"Object.resource_version": {"readOnly": true, "description": "Changes on every write; PUT and DELETE send it as If-Match (it is the ETag)."},
	"Object.phase":            {"enum": phases, "readOnly": true},
	"Object.health":           {"enum": healths, "readOnly": true},
	"Object.deleting":         {"readOnly": true, "description": "Set by DELETE: the stack is being destroyed, and the object goes once it is."},
	"Object.created_at":       {"readOnly": true},
	"Object.updated_at":       {"readOnly": true},
	"Object.created_by":       {"readOnly": true},
	"Body.cluster_id": {"format": "uuid",
		"description": "A node pool's cluster: required by POST /api/v1/nodepools, taken from the path otherwise; a pool cannot move to another cluster."},
	"Body.name":                        {"minLength": 1, "description": "The cloud's name of the object: it cannot change once created."},
	"Platform.type":                    {"enum": body.Platforms(), "description": "The cloud; it cannot change once created."},
	"Autoscaling.minNodes":             {"minimum": 0},
	"Autoscaling.maxNodes":             {"minimum": 0},
	"Spec.nodeCount":                   {"minimum": 0},
	"Condition.type":                   {"minLength": 1},
	"Condition.status":                 {"enum": []string{"True", "False", "Unknown"}},
	"Condition.lastTransitionTime":     {"description": "When the status last changed: the server keeps the earlier time while the status stays the same."},
	"ControllerStatus.controller_name": {"minLength": 1, "maxLength": auth.MaxControllerName, "description": controllerNameNote},
	"ControllerStatus.updated_at":      {"readOnly": true},
	"Error.code":                       {"enum": errorCodes()},
	"Error.problems":                   {"description": "A VALIDATION_ERROR's problems, each naming the field as the body wrote it."},
	"ControllerStatus.observed_generation": {"minimum": 1,
		"description": "The object's generation the report is of: from 1 to its current generation."},
}

// controllerNameNote is what a report's controller_name must be, and who may report under it.
const controllerNameNote = "Printable text (no control or invisible characters, no space at either end). " +
	"A controller token reports only under the name it was made for; no caller reports as clusterplane, serve's own workers'."

func errorCodes() []string {
	seen := map[string]bool{}
	var codes []string
	for _, status := range sortedStatuses() {
		if c := errorStatuses[status].code; !seen[c] {
			seen[c] = true
			codes = append(codes, c)
		}
	}
	return codes
}

func sortedStatuses() []int { return slices.Sorted(maps.Keys(errorStatuses)) }

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// schema is the schema of values of type t: a $ref to a component for a struct.
func (d *openAPIDoc) schema(t reflect.Type) jsonObject {
	switch {
	case t == timeType:
		return jsonObject{"type": "string", "format": "date-time"}
	case t == rawType:
		return jsonObject{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return d.schema(t.Elem())
	case reflect.String:
		return jsonObject{"type": "string"}
	case reflect.Bool:
		return jsonObject{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return jsonObject{"type": "integer"}
	case reflect.Int64, reflect.Uint64:
		return jsonObject{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return jsonObject{"type": "number"}
	case reflect.Slice, reflect.Array:
		return jsonObject{"type": "array", "items": d.schema(t.Elem())}
	case reflect.Map:
		values := d.schema(t.Elem())
		if len(values) == 0 {
			return jsonObject{"type": "object", "additionalProperties": true}
		}
		return jsonObject{"type": "object", "additionalProperties": values}
	case reflect.Struct:
		return ref("schemas", d.component(t))
	}
	return jsonObject{}
}

// component makes the component schema of a struct from its json tags, once, and names it.
func (d *openAPIDoc) component(t reflect.Type) string {
	if name, ok := d.names[t]; ok {
		return name
	}
	name := t.Name()
	d.names[t] = name
	properties := jsonObject{}
	var required []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		field, opts, _ := strings.Cut(tag, ",")
		if field == "" {
			field = f.Name
		}
		s := d.schema(f.Type)
		for k, v := range schemaNotes[name+"."+field] {
			s[k] = v
		}
		properties[field] = s
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			required = append(required, field)
		}
	}
	if t == platformType {
		platformBlocks(properties)
	}
	c := jsonObject{"type": "object", "properties": properties}
	if required != nil {
		c["required"] = required
	}
	d.schemas[name] = c
	return name
}

var platformType = reflect.TypeFor[body.Platform]()

// platformBlocks adds to the platform's properties each cloud's block, under the cloud's ID: the
// platform's JSON holds them (body.Platform's UnmarshalJSON), though its Go type has a map.
func platformBlocks(properties jsonObject) {
	for _, id := range body.Platforms() {
		properties[id] = jsonObject{"type": "object", "additionalProperties": true,
			"description": "The fields of the " + body.PlatformName(id) + " kind's manifest spec (clusterplane explain), " +
				"checked as `clusterplane validate` checks a manifest."}
	}
}

// typeName is an object type's name in schemas and operation ids: "Cluster", "Nodepool".
func typeName(objectType string) string {
	if objectType == "" {
		return ""
	}
	return strings.ToUpper(objectType[:1]) + objectType[1:]
}

// listSchema is the component of a page of an object type's objects, as list writes it.
func (d *openAPIDoc) listSchema(objectType string) jsonObject {
	name := typeName(objectType) + "List"
	if _, ok := d.schemas[name]; !ok {
		d.schemas[name] = jsonObject{
			"type":     "object",
			"required": []string{listName[objectType], "total", "limit", "offset", "next_cursor"},
			"properties": jsonObject{
				listName[objectType]: jsonObject{"type": "array", "items": d.schema(reflect.TypeFor[store.Object]())},
				"total":              jsonObject{"type": "integer", "minimum": 0, "description": "How many objects the filters select, on every page."},
				"limit":              jsonObject{"type": "integer", "minimum": 1, "maximum": 100},
				"offset":             jsonObject{"type": "integer", "minimum": 0},
				"next_cursor": jsonObject{"type": []string{"string", "null"},
					"description": "The next page's cursor: send it as cursor to read the page that follows; null on the last page."},
			},
		}
	}
	return ref("schemas", name)
}

// statusSchema is the component of the controllers' status of one object, as status writes it.
func (d *openAPIDoc) statusSchema(objectType string) jsonObject {
	name := typeName(objectType) + "Status"
	idKey := objectType + "_id"
	if _, ok := d.schemas[name]; !ok {
		d.schemas[name] = jsonObject{
			"type":     "object",
			"required": []string{idKey, "controller_status"},
			"properties": jsonObject{
				idKey:               jsonObject{"type": "string", "format": "uuid"},
				"controller_status": jsonObject{"type": "array", "items": d.schema(reflect.TypeFor[store.ControllerStatus]())},
			},
		}
	}
	return ref("schemas", name)
}

// pathParams are the names in a route's path, as {name}.
func pathParams(path string) []string {
	var names []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}"))
		}
	}
	return names
}

// operationID names a route: its verb and object type ("createCluster", "listNodepools",
// "getClusterStatus"), and for a path parameter other than the object's own id the object it
// is in ("createNodepoolInCluster").
func operationID(rt Route) string {
	noun := typeName(rt.ObjectType)
	var id string
	switch rt.Verb {
	case VerbList:
		id = "list" + typeName(listName[rt.ObjectType])
		if listName[rt.ObjectType] == "" {
			id = "list" + noun + "s"
		}
	case VerbStatus:
		id = "get" + noun + "Status"
	case VerbSetStatus:
		id = "report" + noun + "Status"
	default:
		id = string(rt.Verb) + noun
	}
	for _, p := range pathParams(rt.Path) {
		if p != "id" {
			id += "In" + typeName(strings.TrimSuffix(p, "Id"))
		}
	}
	return id
}

// rolesWith are the roles that hold a permission.
func rolesWith(p auth.Permission) []string {
	var names []string
	for _, r := range []auth.Role{auth.Viewer, auth.Editor, auth.Controller, auth.Admin} {
		if r.Can(p) {
			names = append(names, string(r))
		}
	}
	return names
}

func (d *openAPIDoc) content(schema jsonObject) jsonObject {
	return jsonObject{"application/json": jsonObject{"schema": schema}}
}

// objectResponse is an answer carrying one object, its resource version as the ETag.
func (d *openAPIDoc) objectResponse(description string, location bool) jsonObject {
	headers := jsonObject{"ETag": ref("headers", "ETag")}
	if location {
		headers["Location"] = ref("headers", "Location")
	}
	return jsonObject{
		"description": description,
		"headers":     headers,
		"content":     d.content(d.schema(reflect.TypeFor[store.Object]())),
	}
}

// operation documents one route; what it takes and answers follows its Op, as handler does.
func (d *openAPIDoc) operation(rt Route) jsonObject {
	roles := rolesWith(rt.Permission)
	op := jsonObject{
		"operationId":               operationID(rt),
		"summary":                   rt.Summary,
		"tags":                      []string{listName[rt.ObjectType]},
		"description":               "Needs the " + rt.Permission.String() + " permission (roles: " + strings.Join(roles, ", ") + ").",
		"x-clusterplane-permission": rt.Permission.String(),
		"x-clusterplane-roles":      roles,
	}
	var params []any
	for _, p := range pathParams(rt.Path) {
		params = append(params, jsonObject{"name": p, "in": "path", "required": true, "schema": jsonObject{"type": "string", "format": "uuid"}})
	}
	// What the request path answers on every route: the query (400), the token, the role, a
	// method the path does not take, the rate and the server.
	errs := []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed,
		http.StatusTooManyRequests, http.StatusInternalServerError}
	if len(pathParams(rt.Path)) > 0 {
		errs = append(errs, http.StatusNotFound)
	}
	responses := jsonObject{}
	requestBody := func(schema jsonObject) {
		op["requestBody"] = jsonObject{"required": true, "content": d.content(schema)}
		errs = append(errs, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	conditional := func() {
		params = append(params, ref("parameters", "IfMatch"))
		errs = append(errs, http.StatusPreconditionFailed, http.StatusPreconditionRequired)
	}
	switch rt.Verb {
	case VerbCreate:
		requestBody(d.schema(reflect.TypeFor[body.Body]()))
		errs = append(errs, http.StatusConflict)
		if rt.ObjectType == store.NodePool {
			errs = append(errs, http.StatusNotFound) // the pool's cluster
		}
		responses["201"] = d.objectResponse("Created: Location is the new object's URL.", true)
	case VerbList:
		for _, name := range rt.query() {
			params = append(params, ref("parameters", typeName(name)))
		}
		responses["200"] = jsonObject{"description": "One page of the objects the filters select, oldest first.", "content": d.content(d.listSchema(rt.ObjectType))}
	case VerbGet:
		responses["200"] = d.objectResponse("The object.", false)
	case VerbUpdate:
		conditional()
		requestBody(d.schema(reflect.TypeFor[body.Body]()))
		errs = append(errs, http.StatusConflict) // the object is being deleted, or the change replaces it
		responses["200"] = d.objectResponse("Updated.", false)
	case VerbDelete:
		conditional()
		// A cluster's pools left, or protected; either kind's stack made again outside the API.
		errs = append(errs, http.StatusConflict)
		responses["202"] = d.objectResponse("Accepted: the stack is being destroyed; the object shows phase Finalizing until it goes.", false)
	case VerbStatus:
		responses["200"] = jsonObject{"description": "Every controller's status of the object.", "content": d.content(d.statusSchema(rt.ObjectType))}
	default: // setStatus
		requestBody(d.schema(reflect.TypeFor[store.ControllerStatus]()))
		responses["200"] = jsonObject{"description": "Recorded: every controller's status of the object.", "content": d.content(d.statusSchema(rt.ObjectType))}
	}
	for _, status := range errs {
		responses[strconv.Itoa(status)] = ref("responses", errorStatuses[status].name)
	}
	if rt.Verb == VerbSetStatus {
		d.reportErrors(responses)
	}
	op["responses"] = responses
	if params != nil {
		op["parameters"] = params
	}
	return op
}

// probes are the routes a load balancer or an orchestrator asks, outside Routes: no token, no
// permission, and the answer is text.
func probes() map[string]jsonObject {
	ok := jsonObject{"description": "ok", "content": jsonObject{"text/plain": jsonObject{"schema": jsonObject{"type": "string", "const": "ok\n"}}}}
	probe := func(id, summary, description string) jsonObject {
		return jsonObject{"operationId": id, "summary": summary, "description": description, "tags": []string{"probes"},
			"security": []any{}, "responses": jsonObject{"200": ok}}
	}
	ready := probe("getReadiness", "Readiness: the replica can serve requests",
		"Answers ok while the database answers a ping within a second, its tables (the service's and the queue's) are not "+
			"older than this build's, and no shutdown has begun; else 503, saying which. Send a load balancer's or an orchestrator's "+
			"readiness checks here: a replica answers 503 from the moment its shutdown begins (SIGTERM, Ctrl-C).")
	ready["responses"].(jsonObject)["503"] = ref("responses", errorStatuses[http.StatusServiceUnavailable].name)
	return map[string]jsonObject{
		"/healthz": probe("getHealth", "Liveness: the process answers",
			"Answers ok while the process serves HTTP, whatever its database: restart the replica when it does not. "+
				"Whether it can serve requests is GET /readyz."),
		"/readyz": ready,
		"/metrics": {"operationId": "getMetrics", "summary": "The replica's Prometheus metrics",
			"description": "Prometheus's text format: the API's requests, the jobs, the reconciles, the cloud requests, the objects by " +
				"condition and the fleet's monthly cost (docs/api.md, Metrics). No label carries an object's id.",
			"tags": []string{"probes"}, "security": []any{}, "responses": jsonObject{"200": jsonObject{"description": "the metrics",
				"content": jsonObject{"text/plain": jsonObject{"schema": jsonObject{"type": "string"}}}}}},
	}
}

// reportErrors says a status report's 400 and 403, which have reasons of their own beyond a
// body's shape and a role.
func (d *openAPIDoc) reportErrors(responses jsonObject) {
	errorResponse := func(description string) jsonObject {
		return jsonObject{"description": description, "content": d.content(ref("schemas", "ErrorResponse"))}
	}
	responses["400"] = errorResponse("The report is malformed (code VALIDATION_ERROR), each problem naming its field: " +
		"controller_name missing or not printable (control or invisible characters, a space at either end, more than " +
		strconv.Itoa(auth.MaxControllerName) + " bytes); observed_generation not from 1 to the object's current generation; " +
		"a condition without a type or a status of True, False or Unknown.")
	responses["403"] = errorResponse("The caller may not report under that controller_name (code FORBIDDEN), as the message says: " +
		"it lacks the write-status permission; the name is clusterplane, serve's own workers' (in any case); it is not the name " +
		"the controller token was made for; the token was made before tokens named their controller; or the caller came through OIDC or a trusted proxy.")
}

func (d *openAPIDoc) document() jsonObject {
	paths := jsonObject{}
	for _, rt := range Routes {
		item, _ := paths[rt.Path].(jsonObject)
		if item == nil {
			item = jsonObject{}
			paths[rt.Path] = item
		}
		item[strings.ToLower(rt.Method)] = d.operation(rt)
	}
	for path, op := range probes() {
		paths[path] = jsonObject{"get": op}
	}
	errorEnvelope := jsonObject{
		"type":       "object",
		"required":   []string{"error"},
		"properties": jsonObject{"error": d.schema(reflect.TypeFor[Error]())},
	}
	d.schemas["ErrorResponse"] = errorEnvelope
	responses := jsonObject{}
	for _, status := range sortedStatuses() {
		e := errorStatuses[status]
		r := jsonObject{"description": e.description + " (code " + e.code + ")", "content": d.content(ref("schemas", "ErrorResponse"))}
		if status == http.StatusUnauthorized {
			r["headers"] = jsonObject{"WWW-Authenticate": jsonObject{"schema": jsonObject{"type": "string"}, "description": `Bearer realm="clusterplane"`}}
		}
		if status == http.StatusMethodNotAllowed {
			r["headers"] = jsonObject{"Allow": jsonObject{"schema": jsonObject{"type": "string"}, "description": "The methods the path takes."}}
		}
		if status == http.StatusTooManyRequests {
			r["headers"] = jsonObject{"Retry-After": jsonObject{"schema": jsonObject{"type": "integer"}, "description": "Seconds to wait before the next request."}}
		}
		responses[e.name] = r
	}
	query := func(name, description string, schema jsonObject) jsonObject {
		return jsonObject{"name": name, "in": "query", "required": false, "description": description, "schema": schema}
	}
	return jsonObject{
		"openapi": "3.1.0",
		"info": jsonObject{
			"title":   "clusterplane serve",
			"version": "v1",
			"description": "The HTTP API of `clusterplane serve`: clusters and node pools, each body checked as " +
				"`clusterplane validate` checks a manifest, each update and delete conditional (If-Match).",
		},
		"security": []any{jsonObject{"bearer": []string{}}},
		"paths":    paths,
		"components": jsonObject{
			"securitySchemes": jsonObject{
				"bearer": jsonObject{
					"type":   "http",
					"scheme": "bearer",
					"description": "An OIDC ID token, or an API token (cpt_...). The caller's role (viewer, editor, controller, admin) " +
						"decides what it may do: each operation's x-clusterplane-permission names the permission it needs.",
				},
			},
			"schemas":   d.schemas,
			"responses": responses,
			"parameters": jsonObject{
				"IfMatch": jsonObject{"name": "If-Match", "in": "header", "required": true,
					"description": "The resource_version read (the ETag), \"*\" or a list of ETags, read as RFC 9110 says: the write goes when one is the current version, " +
						"compared strongly (a weak ETag, W/\"12\", never matches); without it the write is refused (428).",
					"schema": jsonObject{"type": "string"}},
				"Limit": query("limit", "The page's size.", jsonObject{"type": "integer", "minimum": 1, "maximum": 100, "default": 50}),
				"Cursor": query("cursor", "Where the page starts: the previous page's next_cursor, as it was given (opaque). Pages read so "+
					"stay in order while objects are created and deleted, and a deep page costs what the first does; not with offset.",
					jsonObject{"type": "string"}),
				"Offset": query("offset", "How many objects to skip (the database reads and drops them: prefer cursor past the first pages).",
					jsonObject{"type": "integer", "minimum": 0, "maximum": 1<<31 - 1, "default": 0}),
				"Status": query("status", "Only the objects in this phase.", jsonObject{"type": "string", "enum": phases}),
				"Health": query("health", "Only the objects of this health.", jsonObject{"type": "string", "enum": healths}),
			},
			"headers": jsonObject{
				"ETag":     jsonObject{"description": "The object's resource_version, quoted: send it as If-Match.", "schema": jsonObject{"type": "string"}},
				"Location": jsonObject{"description": "The new object's URL.", "schema": jsonObject{"type": "string"}},
			},
		},
	}
}
