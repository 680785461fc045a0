// What the live bench prints: Markdown lines as each part measures them, then whether each goal was met.
export interface Report {
  say(line?: string): void;
  goal(name: string, met: boolean): void;
}

export function createReport(): Report & { sayGoals(): void; allMet(): boolean } {
  const goals: { name: string; met: boolean }[] = [];
  const say = (line = '') => {
    console.log(line);
  };
  return {
    say,
    goal: (name, met) => void goals.push({ name, met }),
    sayGoals: () => {
      say();
      for (const goal of goals) say(`- ${goal.met ? 'met' : 'MISSED'}: ${goal.name}`);
    },
    allMet: () => goals.every((goal) => goal.met),
  };
}
