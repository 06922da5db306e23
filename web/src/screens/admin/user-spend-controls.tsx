// The slot for a user's spend controls on the user screen (api.md "Spend controls": budgets,
// expiring grants, auto top-up, balance alerts). The budgets branch fills this component with its
// own panels; until then it shows nothing, so the user screen needs no change when they land.
export function UserSpendControls(_props: { userId: string }) {
  return null;
}
