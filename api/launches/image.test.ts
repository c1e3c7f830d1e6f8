/**
 * fetchLaunchImage against a loopback image host test double: every IMAGE_* code,
 * and real files in all four formats (built by testdata/images.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { until } from "../../infra/testing/wait";
import { fetchLaunchImage, IMAGE_MAX_BYTES } from "./image";
import { ApiError } from "../errors";
import { gif, jpeg, png, webp } from "./testdata/images";

const builders = { png, jpg: jpeg, gif, webp } as const;

/** Test double of a third-party image host. Content types lie on purpose: only the bytes count. */
const streamed = { bytes: 0, cancelled: false };
const imageHostDouble = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 30,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const img = /^\/img\/(png|jpg|gif|webp)\/(\d+)x(\d+)$/.exec(path);
    if (img) return new Response(builders[img[1] as keyof typeof builders](Number(img[2]), Number(img[3])), { headers: { "content-type": "text/html" } });
    switch (path) {
      case "/svg":
        return new Response(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><script>alert(1)</script></svg>`, { headers: { "content-type": "image/png" } });
      case "/html":
        return new Response("<!doctype html><html><body>not an image</body></html>", { headers: { "content-type": "image/jpeg" } });
      case "/truncated-png":
        return new Response(png(64, 64).subarray(0, 20), { headers: { "content-type": "image/png" } });
      case "/exactly-5mb":
        return new Response(png(32, 32, IMAGE_MAX_BYTES));
      case "/5mb-plus-1":
        return new Response(png(32, 32, IMAGE_MAX_BYTES + 1));
      case "/endless": // no content-length: the client has to stop reading by itself
        return new Response(
          new ReadableStream({
            pull(controller) {
              streamed.bytes += 64 * 1024;
              controller.enqueue(new Uint8Array(64 * 1024));
            },
            cancel() {
              streamed.cancelled = true;
            },
          }),
          { headers: { "content-type": "image/png" } },
        );
      case "/to-private":
        return Response.redirect("https://10.0.0.7/img.png", 302);
      case "/to-metadata":
        return Response.redirect("http://169.254.169.254/latest/meta-data/", 301);
      case "/to-png":
        return Response.redirect("/img/png/40x30", 302);
      case "/stalls": // headers and a first chunk, then nothing
        return new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(png(16, 16).subarray(0, 10));
            },
          }),
        );
      case "/slow":
        await Bun.sleep(3000);
        return new Response(png(16, 16));
      default:
        return new Response("not found", { status: 404 });
    }
  },
});
afterAll(() => imageHostDouble.stop(true));
const base = `http://127.0.0.1:${imageHostDouble.port}`;

async function failure(url: string, allowLoopback = true, timeoutMs?: number) {
  try {
    await fetchLaunchImage(url, { allowLoopback, timeoutMs });
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(400);
    return { code: e.code, message: e.message };
  }
  throw new Error(`expected ${url} to fail`);
}

describe("launch image", () => {
  test("accepts all four formats, judged by the bytes, with their dimensions", async () => {
    for (const [ext, mime, w, h] of [["png", "image/png", 16, 16], ["jpg", "image/jpeg", 100, 37], ["gif", "image/gif", 17, 33], ["webp", "image/webp", 4096, 4096]] as const) {
      const image = await fetchLaunchImage(`${base}/img/${ext}/${w}x${h}`, { allowLoopback: true });
      expect({ ext: image.ext, mime: image.mime, width: image.width, height: image.height }).toEqual({ ext, mime, width: w, height: h });
      expect(image.bytes).toEqual(builders[ext](w, h));
    }
    const redirected = await fetchLaunchImage(`${base}/to-png`, { allowLoopback: true });
    expect([redirected.width, redirected.height]).toEqual([40, 30]);
    const fiveMb = await fetchLaunchImage(`${base}/exactly-5mb`, { allowLoopback: true });
    expect(fiveMb.bytes.length).toBe(IMAGE_MAX_BYTES);
  });

  test("IMAGE_URL_REFUSED: not a public https address, checked again after redirects", async () => {
    expect((await failure(`${base}/img/png/16x16`, false)).code).toBe("IMAGE_URL_REFUSED"); // loopback outside tests
    const http = await failure("http://example.com/a.png", false);
    expect(http).toEqual({ code: "IMAGE_URL_REFUSED", message: expect.stringContaining("scheme is http") });
    expect((await failure("http://1.1.1.1/a.png", true)).code).toBe("IMAGE_URL_REFUSED"); // http only ever for loopback test doubles
    for (const url of ["https://169.254.169.254/latest/meta-data/", "https://10.1.2.3/a.png", "https://192.168.0.1/a.png", "https://[::1]/a.png", "https://localhost/a.png", "file:///etc/passwd", "data:image/png;base64,iVBORw0KGgo=", "ftp://example.com/a.png", "not a url"])
      expect((await failure(url, false)).code, url).toBe("IMAGE_URL_REFUSED");
    expect((await failure(`${base}/to-private`)).code).toBe("IMAGE_URL_REFUSED");
    expect((await failure(`${base}/to-metadata`)).code).toBe("IMAGE_URL_REFUSED");
  });

  test("IMAGE_TOO_LARGE: over 5 MB, reading stops at the limit", async () => {
    const declared = await failure(`${base}/5mb-plus-1`);
    expect(declared.code).toBe("IMAGE_TOO_LARGE");
    expect(declared.message).toContain("over the 5 MB limit");

    const endless = await failure(`${base}/endless`);
    expect(endless).toEqual({ code: "IMAGE_TOO_LARGE", message: declared.message });
    await until("the test double to see the client hang up", async () => streamed.cancelled || undefined, 10_000);
    // a cancelled stream is never pulled again: what was served at the hang-up is all that is served
    expect(streamed.bytes).toBeLessThan(32 * 1024 * 1024); // the limit plus what sat in server and socket buffers
  });

  test("IMAGE_NOT_AN_IMAGE: wrong bytes whatever the content type, or a side outside 16-4096 px", async () => {
    const svg = await failure(`${base}/svg`);
    expect(svg.code).toBe("IMAGE_NOT_AN_IMAGE");
    expect(svg.message).toContain("<svg");
    expect((await failure(`${base}/html`)).code).toBe("IMAGE_NOT_AN_IMAGE");
    expect((await failure(`${base}/truncated-png`)).code).toBe("IMAGE_NOT_AN_IMAGE");
    const small = await failure(`${base}/img/gif/15x15`);
    expect(small).toEqual({ code: "IMAGE_NOT_AN_IMAGE", message: expect.stringContaining("15x15 px") });
    for (const path of ["/img/png/4097x16", "/img/webp/4097x16", "/img/jpg/16x4097", "/img/png/16x15"])
      expect((await failure(`${base}${path}`)).code, path).toBe("IMAGE_NOT_AN_IMAGE");
  });

  test("IMAGE_UNREACHABLE: 404, closed port, timeout, unknown host", async () => {
    const missing = await failure(`${base}/nothing-here.png`);
    expect(missing.code).toBe("IMAGE_UNREACHABLE");
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const closedPort = closed.port;
    closed.stop(true);
    // a 404 and a closed port read the same: the message never tells what answered on the network
    expect(await failure(`http://127.0.0.1:${closedPort}/a.png`)).toEqual(missing);
    const started = Date.now();
    expect((await failure(`${base}/slow`, true, 300)).code).toBe("IMAGE_UNREACHABLE");
    expect((await failure(`${base}/stalls`, true, 300)).code).toBe("IMAGE_UNREACHABLE");
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await failure("https://no-such-host.invalid/a.png", false)).code).toBe("IMAGE_UNREACHABLE");
  });
});
