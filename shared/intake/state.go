package intake

// State is where an introduction is in its life.
type State string

// The states; expiry is none, and the sweep deletes an expired draft.
const (
	StateDraft     State = "DRAFT"
	StateConfirmed State = "CONFIRMED"
	StateHandled   State = "HANDLED"
	StateWithdrawn State = "WITHDRAWN"
)

// Move is something that can happen to an introduction.
type Move string

// The moves.
const (
	MoveConfirm  Move = "confirm"
	MoveHandle   Move = "handle"
	MoveWithdraw Move = "withdraw"
)

// stateBehaviour answers each move a state allows with the state it leads to.
type stateBehaviour interface {
	confirm() (State, error)
	handle() (State, error)
	withdraw() (State, error)
}

type refuseAll struct{ from State }

func (r refuseAll) refuse(m Move) (State, error) {
	return r.from, &Error{Code: CodeStateConflict, Detail: "An introduction in state " + string(r.from) + " cannot " + string(m) + "."}
}
func (r refuseAll) confirm() (State, error)  { return r.refuse(MoveConfirm) }
func (r refuseAll) handle() (State, error)   { return r.refuse(MoveHandle) }
func (r refuseAll) withdraw() (State, error) { return r.refuse(MoveWithdraw) }

type draftState struct{ refuseAll }

func (draftState) confirm() (State, error) { return StateConfirmed, nil }

type confirmedState struct{ refuseAll }

func (confirmedState) handle() (State, error)   { return StateHandled, nil }
func (confirmedState) withdraw() (State, error) { return StateWithdrawn, nil }

type handledState struct{ refuseAll }

func (handledState) withdraw() (State, error) { return StateWithdrawn, nil }

type withdrawnState struct{ refuseAll }

func behaviourOf(s State) stateBehaviour {
	switch s {
	case StateDraft:
		return draftState{refuseAll{s}}
	case StateConfirmed:
		return confirmedState{refuseAll{s}}
	case StateHandled:
		return handledState{refuseAll{s}}
	case StateWithdrawn:
		return withdrawnState{refuseAll{s}}
	default:
		return refuseAll{s}
	}
}

// Next returns the state m leads to from s, or a STATE_CONFLICT *Error.
func (s State) Next(m Move) (State, error) {
	b := behaviourOf(s)
	switch m {
	case MoveConfirm:
		return b.confirm()
	case MoveHandle:
		return b.handle()
	case MoveWithdraw:
		return b.withdraw()
	default:
		return s, &Error{Code: CodeStateConflict, Detail: "Unknown move " + string(m) + "."}
	}
}
