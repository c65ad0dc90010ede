// Stand-in for the cordis package: W1 drives Session directly and never the store service.
export class Context {}
export class Service { ctx: any; constructor(ctx: any, _name: string) { this.ctx = ctx } }
