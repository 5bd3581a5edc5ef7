package admin_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ownersite/introductions/functions/admin"
	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/firestorestore"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/storagetest"
)

// racingNotifier makes one webhook notice per introduction, as the
// delivery service does where a webhook is configured, and records what it
// was asked; asked for the notices of notSpam, it first marks it not spam,
// as the owner could between the erasure's query and that introduction's
// erasure.
type racingNotifier struct {
	mu                sync.Mutex
	asked, dispatched []string
	notSpam           string
	store             admin.Store
	t                 *testing.T
}

func (n *racingNotifier) Outbox(id, event string, prov intake.Provenance) []intake.Envelope {
	n.mu.Lock()
	n.asked = append(n.asked, id+" "+event)
	n.mu.Unlock()
	if id == n.notSpam {
		if _, err := n.store.MarkSpam(context.Background(), id, "owner@site.example", false, now); err != nil {
			n.t.Error(err)
		}
	}
	return []intake.Envelope{{ID: intake.EnvelopeID(id, intake.DestinationWebhook, event), SubmissionID: id, Destination: intake.DestinationWebhook,
		Event: event, PayloadVersion: intake.HandoffPayloadVersion, Status: intake.DeliveryPending, Attempts: []intake.DeliveryAttempt{}, Provenance: prov}}
}

func (n *racingNotifier) Dispatch(ids []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.dispatched = append(n.dispatched, ids...)
}

// TestTheBulkErasureOfSpamTellsAndDeletesTheFiles: the admin's erasure of
// spam asks the notices of each introduction marked spam, sends those the
// store wrote, and deletes the erased introductions' files; one the owner
// marks not spam while the erasure runs is kept, with its file.
func TestTheBulkErasureOfSpamTellsAndDeletesTheFiles(t *testing.T) {
	files, bucket := storagetest.Bucket(t)
	n := &racingNotifier{t: t}
	f := newFixture(t, func(d *admin.Deps) { d.Notifier, d.Files, n.store = n, files, d.Store })
	var ids []string
	for _, name := range []string{"Spammy Sam", "Other Olga"} {
		s := sample(name, strings.ToLower(strings.Fields(name)[1])+"@example.com", now.Add(-time.Hour))
		s.Envelopes = []intake.Envelope{{Destination: intake.DestinationWebhook, Status: intake.DeliveryDelivered}}
		id := f.keep(s)
		if a := f.do(http.MethodPost, "/admin/api/introductions/"+id+"/spam", `{"spam":true}`); a.status != http.StatusOK {
			t.Fatalf("mark: %d %s", a.status, a.body)
		}
		if _, err := attachment.Receive(context.Background(), files, intake.AttachmentPrefix(id)+"file", "text/plain", strings.NewReader("words"), 100); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	spam, kept := ids[0], ids[1]
	n.notSpam = kept

	if a := f.do(http.MethodPost, "/admin/api/spam/erasure", `{"confirm":true}`); a.status != http.StatusOK || fmtAny(a.json(t)) != "map[erased:1]" {
		t.Fatalf("the erasure: %d %s", a.status, a.body)
	}
	if f.exists(firestorestore.Introductions, spam) || !f.exists(firestorestore.Introductions, kept) {
		t.Fatal("the erasure took the wrong introductions")
	}
	want := []string{kept + " " + intake.EventWithdrawn, spam + " " + intake.EventWithdrawn}
	slices.Sort(n.asked)
	slices.Sort(want)
	if !slices.Equal(n.asked, want) {
		t.Errorf("notices asked for %v", n.asked)
	}
	if want := []string{intake.EnvelopeID(spam, intake.DestinationWebhook, intake.EventWithdrawn)}; !slices.Equal(n.dispatched, want) {
		t.Errorf("dispatched %v, want %v", n.dispatched, want)
	}
	var left []string
	for _, o := range storagetest.Objects(t, bucket) {
		left = append(left, o.Name)
	}
	if want := []string{intake.AttachmentPrefix(kept) + "file"}; !slices.Equal(left, want) {
		t.Errorf("the bucket holds %v, want %v", left, want)
	}
}
