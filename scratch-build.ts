import { buildDashboard } from "./api/dashboard/bundle";
const t = performance.now();
const b = await buildDashboard();
console.log(performance.now() - t, [...b.assets].map(([k, v]) => [k, v.body.length]));
console.log(b.html.slice(0, 400));
