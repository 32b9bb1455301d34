/** Next runs this once when the server starts: seed the demo data and say how to reach it. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { seedDemo } = await import("#lib/faultline");
  const token = await seedDemo();
  console.log(`faultline: token ${token ?? "(set on first start)"}; DSN: GET /api/faultline/api/0/projects/demo/web/keys/; dashboard: /login`);
}
