import type { CertificationRunView } from '@mmp/protocol';

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (char) =>
    char === '<'
      ? '&lt;'
      : char === '>'
        ? '&gt;'
        : char === '&'
          ? '&amp;'
          : char === "'"
            ? '&apos;'
            : '&quot;',
  );
}

/** Characters XML 1.0 cannot carry at all, even escaped. */
function xmlSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return escapeXml(text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, ''));
}

const seconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

/**
 * The run as JUnit XML (the de facto schema CI tools read): one testsuite, one testcase per
 * case, a failure element carrying expected and observed when the case failed.
 */
export function junitReport(run: CertificationRunView): string {
  const name = `certification ${run.railId} ${run.channel.network} ${run.channel.country} ${run.channel.currency}`;
  const cases = run.cases.map((result) => {
    const title = `case ${String(result.number).padStart(2, '0')}: ${result.name}`;
    const attributes = `name="${xmlSafe(title)}" classname="${xmlSafe(`certification.${run.railId}`)}" time="${seconds(result.latencyMs)}"`;
    if (result.status === 'PASSED') return `    <testcase ${attributes}/>`;
    const message = `expected ${result.expected}; observed ${result.observed ?? 'nothing (the case did not finish)'}`;
    return [
      `    <testcase ${attributes}>`,
      `      <failure message="${xmlSafe(message)}" type="${xmlSafe(result.status)}">${xmlSafe(message)}</failure>`,
      '    </testcase>',
    ].join('\n');
  });
  const failures = run.cases.filter((result) => result.status !== 'PASSED').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlSafe(name)}" tests="${run.cases.length}" failures="${failures}" time="${seconds(run.durationMs)}">`,
    `  <testsuite name="${xmlSafe(name)}" id="${xmlSafe(run.id)}" tests="${run.cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds(run.durationMs)}" timestamp="${xmlSafe(run.startedAt)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
