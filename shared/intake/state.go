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

// transitions lists, by state, the state each allowed move leads to.
var transitions = map[State]map[Move]State{
	StateDraft:     {MoveConfirm: StateConfirmed},
	StateConfirmed: {MoveHandle: StateHandled, MoveWithdraw: StateWithdrawn},
	StateHandled:   {MoveWithdraw: StateWithdrawn},
}

// Next returns the state m leads to from s, or a STATE_CONFLICT *Error.
func (s State) Next(m Move) (State, error) {
	if m != MoveConfirm && m != MoveHandle && m != MoveWithdraw {
		return s, &Error{Code: CodeStateConflict, Detail: "Unknown move " + string(m) + "."}
	}
	if next, ok := transitions[s][m]; ok {
		return next, nil
	}
	return s, &Error{Code: CodeStateConflict, Detail: "An introduction in state " + string(s) + " cannot " + string(m) + "."}
}
