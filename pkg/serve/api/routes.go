package api

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// Route is one of the API's routes: the table the mux and the OpenAPI document are both made
// from, so that neither lists a route the other lacks.
type Route struct {
	Method, Path string
	Permission   auth.Permission
	Summary      string
	// ObjectType is the type of object the route serves (store.Cluster or store.NodePool); not
	// a kind, which is one of the four manifest kinds a body becomes.
	ObjectType string
	// Verb is what the route does to the object.
	Verb Verb
}

// Verb is what a route does to an object. Setting a status is what the API's words call
// "reporting status" (PUT .../status): its operation ids keep that word.
type Verb string

// The verbs of the API's routes.
const (
	VerbCreate    Verb = "create"
	VerbList      Verb = "list"
	VerbGet       Verb = "get"
	VerbUpdate    Verb = "update"
	VerbDelete    Verb = "delete"
	VerbStatus    Verb = "status"
	VerbSetStatus Verb = "setStatus"
)

// Routes are the API's routes, in the seed's shape.
var Routes = []Route{
	{"POST", "/api/v1/clusters", auth.Write, "Create a cluster", store.Cluster, VerbCreate},
	{"GET", "/api/v1/clusters", auth.Read, "List clusters", store.Cluster, VerbList},
	{"GET", "/api/v1/clusters/{id}", auth.Read, "Get a cluster", store.Cluster, VerbGet},
	{"PUT", "/api/v1/clusters/{id}", auth.Write, "Update a cluster (If-Match required)", store.Cluster, VerbUpdate},
	{"DELETE", "/api/v1/clusters/{id}", auth.Write, "Delete a cluster (If-Match required)", store.Cluster, VerbDelete},
	{"GET", "/api/v1/clusters/{id}/status", auth.Read, "Get a cluster's controller status", store.Cluster, VerbStatus},
	{"PUT", "/api/v1/clusters/{id}/status", auth.WriteStatus, "Report a cluster's status (controllers only)", store.Cluster, VerbSetStatus},
	{"POST", "/api/v1/clusters/{clusterId}/nodepools", auth.Write, "Create a node pool in a cluster", store.NodePool, VerbCreate},
	{"GET", "/api/v1/clusters/{clusterId}/nodepools", auth.Read, "List a cluster's node pools", store.NodePool, VerbList},
	{"POST", "/api/v1/nodepools", auth.Write, "Create a node pool (cluster_id in the body)", store.NodePool, VerbCreate},
	{"GET", "/api/v1/nodepools", auth.Read, "List node pools across clusters", store.NodePool, VerbList},
	{"GET", "/api/v1/nodepools/{id}", auth.Read, "Get a node pool", store.NodePool, VerbGet},
	{"PUT", "/api/v1/nodepools/{id}", auth.Write, "Update a node pool (If-Match required)", store.NodePool, VerbUpdate},
	{"DELETE", "/api/v1/nodepools/{id}", auth.Write, "Delete a node pool (If-Match required)", store.NodePool, VerbDelete},
	{"GET", "/api/v1/nodepools/{id}/status", auth.Read, "Get a node pool's controller status", store.NodePool, VerbStatus},
	{"PUT", "/api/v1/nodepools/{id}/status", auth.WriteStatus, "Report a node pool's status (controllers only)", store.NodePool, VerbSetStatus},
}

// listQuery are the query parameters a list takes; no other route takes any.
var listQuery = []string{"limit", "cursor", "offset", "status", "health"}

// query are the query parameters the route takes: any other is refused (400).
func (rt Route) query() []string {
	if rt.Verb == VerbList {
		return listQuery
	}
	return nil
}

// takesBody tells whether the route reads a JSON body.
func (rt Route) takesBody() bool {
	return rt.Verb == VerbCreate || rt.Verb == VerbUpdate || rt.Verb == VerbSetStatus
}

func (rt Route) handler(s *Server) handler {
	switch rt.Verb {
	case VerbCreate:
		return s.create(rt.ObjectType)
	case VerbList:
		return s.list(rt.ObjectType)
	case VerbGet:
		return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
			return s.get(w, r, rt.ObjectType)
		}
	case VerbUpdate:
		return s.update(rt.ObjectType)
	case VerbDelete:
		return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
			cond, err := ifMatch(r)
			if err != nil {
				return err
			}
			// The version is read to match If-Match's list against it; the store refuses the
			// delete if the object changes in between.
			old, err := s.Store.Objects().Get(r.Context(), rt.ObjectType, r.PathValue("id"))
			if err != nil {
				return err
			}
			rv, err := cond.version(old.ResourceVersion)
			if err != nil {
				return err
			}
			o, err := s.Store.Objects().Delete(r.Context(), rt.ObjectType, r.PathValue("id"), rv, func(ctx context.Context, tx *sql.Tx, o store.Object) error {
				if err := refuseDelete(ctx, tx, o); err != nil {
					return err
				}
				return refuseLostStack(ctx, tx, o)
			})
			if err != nil {
				return err
			}
			// Accepted: the stack is destroyed by a worker; the object shows Finalizing until then.
			writeObject(w, http.StatusAccepted, o)
			return nil
		}
	case VerbStatus:
		return s.status(rt.ObjectType)
	}
	return s.setStatus(rt.ObjectType)
}

func (s *Server) create(objectType string) handler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		b, err := readBody(r)
		if err != nil {
			return err
		}
		if id := r.PathValue("clusterId"); id != "" {
			if b.ClusterID != "" && b.ClusterID != id {
				return &body.ProblemsError{Problems: []body.Problem{{Field: "cluster_id", Rule: "nodepool.cluster_id", Message: "differs from the path's cluster id " + id}}}
			}
			b.ClusterID = id
		}
		if _, err := s.checkBody(r, objectType, b, nil); err != nil {
			return err
		}
		spec, err := json.Marshal(b.Spec)
		if err != nil {
			return err
		}
		o, err := s.Store.Objects().Create(r.Context(), store.Object{Type: objectType, Name: b.Name, ClusterID: b.ClusterID, Spec: spec, CreatedBy: p.Subject})
		if err != nil {
			return err
		}
		w.Header().Set("Location", r.URL.Path+"/"+o.ID)
		if objectType == store.NodePool {
			w.Header().Set("Location", "/api/v1/nodepools/"+o.ID)
		}
		writeObject(w, http.StatusCreated, o)
		return nil
	}
}

// checkBody checks a body of the object type, read once into its manifest by body.Read as the
// worker reads it (every problem at once, named as the body wrote it), and the policy over that
// manifest; old is the object an update changes. The manifest is returned for the update's
// other checks, which take it rather than read the body again.
func (s *Server) checkBody(r *http.Request, objectType string, b body.Body, old *store.Object) (deploytarget.Manifest, error) {
	var problems []body.Problem
	if b.Name == "" {
		problems = append(problems, body.Problem{Field: "name", Rule: "name.required", Message: "is required"})
	}
	if old != nil && b.Name != "" && b.Name != old.Name {
		problems = append(problems, body.Problem{Field: "name", Rule: "name.immutable",
			Message: "is the cloud's name of the " + objectType + " and cannot change (" + old.Name + "): create another and delete this one"})
	}
	if old != nil {
		if was, err := body.Stored(old.Name, old.ClusterID, old.Spec); err == nil && was.Spec.Platform.Type != b.Spec.Platform.Type {
			problems = append(problems, body.Problem{Field: "spec.platform.type", Rule: "platform.immutable", Message: "cannot change (" + was.Spec.Platform.Type + ")"})
		}
	}
	if objectType == store.NodePool && b.ClusterID == "" && old == nil {
		problems = append(problems, body.Problem{Field: "cluster_id", Rule: "nodepool.cluster_id", Message: "is required"})
	}
	if problems != nil {
		return deploytarget.Manifest{}, &body.ProblemsError{Problems: problems}
	}
	clusterID := b.ClusterID
	if old != nil {
		clusterID = old.ClusterID
	}
	pool := objectType == store.NodePool
	m, err := body.Read(r.Context(), s.Kinds, b, pool, clusterID, s.Store.Objects())
	if err != nil {
		return m, body.Problems(err, b.Spec.Platform.Type, pool)
	}
	return m, s.judge(r.Context(), m)
}

func (s *Server) update(objectType string) handler {
	return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
		cond, err := ifMatch(r)
		if err != nil {
			return err
		}
		old, err := s.Store.Objects().Get(r.Context(), objectType, r.PathValue("id"))
		if err != nil {
			return err
		}
		b, err := readBody(r)
		if err != nil {
			return err
		}
		if b.ClusterID != "" && b.ClusterID != old.ClusterID {
			return &body.ProblemsError{Problems: []body.Problem{{Field: "cluster_id", Rule: "nodepool.cluster_id", Message: "a pool cannot move to another cluster"}}}
		}
		m, err := s.checkBody(r, objectType, b, &old)
		if err != nil {
			return err
		}
		if err := s.replaces(r.Context(), objectType, old, b, m); err != nil {
			return err
		}
		spec, err := json.Marshal(b.Spec)
		if err != nil {
			return err
		}
		rv, err := cond.version(old.ResourceVersion)
		if err != nil {
			return err
		}
		o, err := s.Store.Objects().Update(r.Context(), objectType, old.ID, rv, store.Change{Name: b.Name, Spec: spec})
		if err != nil {
			return err
		}
		writeObject(w, http.StatusOK, o)
		return nil
	}
}

// The seed's list filters: the phases and healths an object may have.
var (
	phases   = []string{"Pending", "Progressing", "Ready", "Failed", "Finalizing"}
	healths  = []string{"Healthy", "Degraded", "Drifted", "Unknown"}
	listName = map[string]string{store.Cluster: "clusters", store.NodePool: "nodepools"}
)

func (s *Server) list(objectType string) handler {
	return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
		f, err := listFilter(objectType, r)
		if err != nil {
			return err
		}
		// A page encoded before is the answer while no write has happened since: one small
		// query says so. A cluster's pools need no look-up of the cluster then either: its
		// removal is a write.
		key := pageKey(f)
		changes, err := s.Store.Objects().Changes(r.Context())
		if err != nil {
			return err
		}
		if saved, ok := s.lists.get(key, changes); ok {
			writeEncoded(w, saved.body)
			return nil
		}
		if f.ClusterID != "" {
			if _, err := s.Store.Objects().Get(r.Context(), store.Cluster, f.ClusterID); err != nil {
				return err
			}
		}
		page, err := s.Store.Objects().List(r.Context(), f)
		if err != nil {
			return err
		}
		var next *string
		if page.Next != nil {
			c := encodeCursor(*page.Next)
			next = &c
		}
		encoded, err := encodeAnswer(map[string]any{listName[objectType]: page.Objects, "total": page.Total, "limit": f.Limit, "offset": f.Offset,
			"next_cursor": next})
		if err != nil {
			return err
		}
		if len(page.Objects) > 0 {
			// Only a page with rows says the changes it was read at; an empty one costs little.
			s.lists.put(key, savedAnswer{changes: page.Changes, body: encoded})
		}
		writeEncoded(w, encoded)
		return nil
	}
}

// listFilter reads a list's query (limit, offset or cursor, status, health) into the store's
// filter; every query parameter that is out of its range is a problem of the error returned.
func listFilter(objectType string, r *http.Request) (store.Filter, error) {
	q := r.URL.Query()
	f := store.Filter{Type: objectType, ClusterID: r.PathValue("clusterId"), Phase: q.Get("status"), Health: q.Get("health"), Limit: 50}
	var problems []body.Problem
	number := func(name string, lo, hi int, into *int) {
		v := q.Get(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			problems = append(problems, body.Problem{Field: name, Rule: "query." + name, Message: "must be a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)})
			return
		}
		*into = n
	}
	number("limit", 1, 100, &f.Limit)
	number("offset", 0, 1<<31-1, &f.Offset)
	if c := q.Get("cursor"); c != "" {
		place, err := decodeCursor(c)
		switch {
		case err != nil:
			problems = append(problems, body.Problem{Field: "cursor", Rule: "query.cursor", Message: err.Error()})
		case f.Offset > 0:
			problems = append(problems, body.Problem{Field: "offset", Rule: "query.offset",
				Message: "cannot be given with a cursor: the cursor says where the page starts"})
		default:
			f.After = &place
		}
	}
	oneOf := func(name, v string, allowed []string) {
		for _, a := range allowed {
			if v == "" || v == a {
				return
			}
		}
		problems = append(problems, body.Problem{Field: name, Rule: "query." + name, Message: "must be one of " + strings.Join(allowed, ", ")})
	}
	oneOf("status", f.Phase, phases)
	oneOf("health", f.Health, healths)
	if problems != nil {
		return f, &body.ProblemsError{Problems: problems}
	}
	return f, nil
}

// get answers a read of one object. The object as encoded before is the answer while no write
// has happened since, as a list's page is: the count of changes is one small query, shared by
// the reads asked at the same moment (store.Objects.Changes).
func (s *Server) get(w http.ResponseWriter, r *http.Request, objectType string) error {
	key := objectType + "\x00" + r.PathValue("id")
	changes, err := s.Store.Objects().Changes(r.Context())
	if err != nil {
		return err
	}
	saved, ok := s.objects.get(key, changes)
	if !ok {
		o, err := s.Store.Objects().Get(r.Context(), objectType, r.PathValue("id"))
		if err != nil {
			return err
		}
		body, err := encodeAnswer(o)
		if err != nil {
			return err
		}
		saved = savedAnswer{changes: changes, body: body, etag: strconv.Quote(o.ResourceVersion)}
		s.objects.put(key, saved)
	}
	w.Header().Set("ETag", saved.etag)
	writeEncoded(w, saved.body)
	return nil
}

// writeEncoded writes an answer (a list's page, an object), encoded without indentation
// (encodeAnswer): indenting a page of 100 objects took two thirds of the time spent encoding it, and a list is read by
// programs (a portal), not people.
func writeEncoded(w http.ResponseWriter, encoded []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(encoded)
}

func (s *Server) status(objectType string) handler {
	return func(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
		id := r.PathValue("id")
		statuses, err := s.Store.Statuses().List(r.Context(), objectType, id)
		if err != nil {
			return err
		}
		key := map[string]string{store.Cluster: "cluster_id", store.NodePool: "nodepool_id"}[objectType]
		writeJSON(w, http.StatusOK, map[string]any{key: id, "controller_status": statuses})
		return nil
	}
}

// setStatus is PUT .../status, a controller reporting its status. Its checks, in order: the body's shape (400, every problem at once:
// a printable controller_name, an observed_generation of at least 1, well-formed conditions);
// then whether the caller may report under that name (403: auth.Principal.MayReportAs, so that
// a status is written only by the controller it names and never as serve's own workers); then,
// under the object's lock, that the generation is one the object has had (400).
func (s *Server) setStatus(objectType string) handler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		var st store.ControllerStatus
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&st); err != nil {
			return &body.ProblemsError{Problems: []body.Problem{{Field: "(body)", Rule: "json", Message: err.Error()}}}
		}
		var problems []body.Problem
		if err := auth.CheckControllerName(st.ControllerName); err != nil {
			problems = append(problems, body.Problem{Field: "controller_name", Rule: "status.controller_name", Message: err.Error()})
		}
		if st.ObservedGeneration < 1 {
			problems = append(problems, body.Problem{Field: "observed_generation", Rule: "status.observed_generation",
				Message: "must be from 1 to the object's current generation, not " + strconv.FormatInt(st.ObservedGeneration, 10)})
		}
		for i, c := range st.Conditions {
			if c.Type == "" || (c.Status != "True" && c.Status != "False" && c.Status != "Unknown") {
				problems = append(problems, body.Problem{Field: "conditions[" + strconv.Itoa(i) + "]", Rule: "status.condition",
					Message: "needs a type and a status of True, False or Unknown"})
			}
		}
		if problems != nil {
			return &body.ProblemsError{Problems: problems}
		}
		if err := p.MayReportAs(st.ControllerName); err != nil {
			return &Error{Status: http.StatusForbidden, Code: "FORBIDDEN", Message: err.Error()}
		}
		err := s.Store.Statuses().Put(r.Context(), objectType, r.PathValue("id"), st)
		var generation *store.GenerationError
		if errors.As(err, &generation) {
			return &body.ProblemsError{Problems: []body.Problem{{Field: "observed_generation", Rule: "status.observed_generation", Message: generation.Error()}}}
		}
		if err != nil {
			return err
		}
		return s.status(objectType)(w, r, auth.Principal{})
	}
}
