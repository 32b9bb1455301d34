export async function POST(request: Request): Promise<Response> {
  const note = (await request.json()) as { text?: string };
  return Response.json({ received: note }, { status: 201 });
}
