// Pure: the plan of each chat. whale/plan carries no chat; the plan belongs to the chat whose
// tool call came last (update_plan is one of them), so the Whale view shows the plan of the chat
// the user works in, none for a chat that has not made one, and forgets a chat's plan when the
// chat is closed. Without the chat of a call (VS Code's proposed fields absent) every plan is
// one chat's.
import type { PlanParams } from './requests';

export class ChatPlans {
    private readonly plans = new Map<string, PlanParams>();
    private chat = '';

    /** A tool call came from session (undefined: unknown); reports whether the shown plan changed. */
    called(session: string | undefined): boolean {
        if (session === undefined || session === this.chat) {
            return false;
        }
        const before = this.current();
        this.chat = session;
        return before !== this.current();
    }

    /** whale/plan: the plan of the chat of the latest call. */
    set(p: PlanParams): void {
        this.plans.set(this.chat, p);
    }

    /** The chat was closed or cleared: its plan goes; reports whether the shown plan changed. */
    disposed(session: string): boolean {
        const shown = session === this.chat && this.plans.has(session);
        this.plans.delete(session);
        return shown;
    }

    /** The plan to show: the current chat's, if it made one. */
    current(): PlanParams | undefined {
        return this.plans.get(this.chat);
    }
}
