package firestorestore

// QueryField is one field of a query's index, in order.
type QueryField struct {
	Path       string
	Descending bool
	// ArrayContains marks a field the query filters with array-contains.
	ArrayContains bool
}

// IndexedQuery is the shape of one query the store runs: its collection and
// the fields its filters and orderings use, in index order. A query with a
// single field is served by Firestore's automatic single-field index (which
// infra/ must not exempt); one with several needs a composite index declared
// in infra/, and the infra tests check that each is.
type IndexedQuery struct {
	// Name says which code runs the query.
	Name       string
	Collection string
	Fields     []QueryField
}

// Queries lists every query the store runs. Code that adds a query adds its
// shape here, so that infra/ cannot miss the index it needs.
var Queries = []IndexedQuery{}
