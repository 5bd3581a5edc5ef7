package firestorestore

// QueryField is one field of a query's index, in order.
type QueryField struct {
	Path       string
	Descending bool
	// ArrayContains marks a field the query filters with array-contains.
	ArrayContains bool
}

// IndexedQuery is the shape of one query the store runs: its collection and its fields in
// index order; infra/'s tests check each has its index.
type IndexedQuery struct {
	// Name says which code runs the query.
	Name       string
	Collection string
	Fields     []QueryField
}

// Queries lists every query the store runs: DeleteExpired's on each collection, then the others.
var Queries = append(expiryQueries(), []IndexedQuery{
	{Name: "LastRuns", Collection: SweepRuns, Fields: []QueryField{{Path: "startedAt", Descending: true}}},
	{Name: "DueEnvelopes", Collection: Envelopes, Fields: []QueryField{{Path: dueAtField}}},
	{Name: "submissionEnvelopes (the admin's record, erasure)", Collection: Envelopes, Fields: []QueryField{{Path: "submissionId"}}},
	{Name: "admin: confirmed and handled introductions, newest first (ListIntroductions)", Collection: Introductions,
		Fields: []QueryField{{Path: "state"}, {Path: "confirmedAt", Descending: true}}},
	{Name: "admin: one folder's confirmed and handled introductions, newest first (ListIntroductions ?filter=)", Collection: Introductions,
		Fields: []QueryField{{Path: "folder"}, {Path: "state"}, {Path: "confirmedAt", Descending: true}}},
	{Name: "admin: how many confirmed introductions not marked spam wait (CountWaiting)", Collection: Introductions,
		Fields: []QueryField{{Path: "folder"}, {Path: "state"}}},
	{Name: "admin: what the owner marked spam (CountSpam, EraseSpam)", Collection: Introductions,
		Fields: []QueryField{{Path: "folder"}}},
	{Name: "admin: a data subject's introductions (SubjectRecords, EraseSubject)", Collection: Introductions,
		Fields: []QueryField{{Path: "subjectKey"}}},
	{Name: "admin: the ledger export, by when each attempt arrived (LedgerEntries)", Collection: Ledger,
		Fields: []QueryField{{Path: "provenance.time"}}},
	{Name: "admin: introductions confirmed per day (CountDay)", Collection: Ledger,
		Fields: []QueryField{{Path: "confirmedAt"}}},
	{Name: "admin: refused attempts per day by abuse state (CountDay)", Collection: Ledger,
		Fields: []QueryField{{Path: "abuse.state"}, {Path: "provenance.time"}}},
	{Name: "admin: likely-spam introductions confirmed per day (CountDay)", Collection: Ledger,
		Fields: []QueryField{{Path: "abuse.likelySpam"}, {Path: "confirmedAt"}}},
	{Name: "admin: base-cost solves per day by bucket (CountDay)", Collection: Ledger,
		Fields: []QueryField{{Path: "abuse.solve.maxNumber"}, {Path: "abuse.solve.millis"}, {Path: "provenance.time"}}},
}...)

func expiryQueries() (qs []IndexedQuery) {
	for _, c := range SweptCollections {
		qs = append(qs, IndexedQuery{Name: "DeleteExpired (" + c + ")", Collection: c, Fields: []QueryField{{Path: ExpireAtField}}})
	}
	return qs
}
