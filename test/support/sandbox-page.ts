import { PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import type { Browser, Locator, Page } from 'playwright-core';

export type Person = keyof typeof PEOPLE;

/**
 * The sandbox's page in Chromium, as a person uses it: open a conversation, type `/agent`, open
 * the run's thread, act as someone else. Shared by the browser tests and the script that takes
 * the docs' screenshots (scripts/screenshots/), so that both drive the page one way.
 */
export class SandboxPage {
  private constructor(
    readonly page: Page,
    private readonly sandboxUrl: string,
  ) {}

  /** Opens a conversation (#ops unless told) as a person (the page's person switch is `?as=`). */
  static async open(
    browser: Browser,
    sandboxUrl: string,
    person: Person,
    conversation = 'C0OPS000001',
  ): Promise<SandboxPage> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Below a test's own limit, so that a stuck wait names its locator.
    page.setDefaultTimeout(15_000);
    const opened = new SandboxPage(page, sandboxUrl);
    await opened.goto(person, conversation);
    return opened;
  }

  /** Shows a conversation as a person, in this tab. */
  async goto(person: Person, conversation: string): Promise<void> {
    await this.page.goto(`${this.sandboxUrl}/?as=${person}#${conversation}`);
    await this.page.getByTestId('conversation-title').first().waitFor();
  }

  /** Acts as another person, and reopens the run's thread (switching closes it). */
  async switchTo(person: Person, rootTs: string, channel = '#ops'): Promise<Locator> {
    await this.page.getByTestId('person-switch').selectOption(PEOPLE[person].id);
    await this.page.getByTestId('conversation-title').filter({ hasText: channel }).waitFor();
    return this.openThread(rootTs);
  }

  async openThread(rootTs: string, waitForCard = true): Promise<Locator> {
    await this.page
      .locator(`[data-testid="message"][data-ts="${rootTs}"]`)
      .getByTestId('thread-summary')
      .click();
    const thread = this.page.getByTestId('thread-pane');
    // Exactly "Approve": the grant buttons ("Approve for this session"…) start with it too.
    if (waitForCard) {
      await thread.getByRole('button', { name: 'Approve', exact: true }).first().waitFor();
    }
    return thread;
  }

  /**
   * Types a slash command in the open conversation, waits for the run's thread and opens it
   * (waiting for a card in it unless `cardHere` is false); resolves with the thread root's ts.
   */
  async runAgent(prompt: string, { cardHere = true, rootText = prompt } = {}): Promise<string> {
    await this.page.getByTestId('composer-input').fill(`/agent ${prompt}`);
    await this.page.getByTestId('composer-input').press('Enter');
    // Each run's prompt is its own, so the newest root showing it is this run's.
    const root = this.page.getByTestId('message').filter({ hasText: rootText }).last();
    await root.getByTestId('thread-summary').waitFor();
    const ts = await root.getAttribute('data-ts');
    if (ts === null) throw new Error('the run has no thread root');
    await this.openThread(ts, cardHere);
    return ts;
  }
}
