# NATS for `npm run test:image` where no registry serves the official `nats` image: Debian's
# nats-server package on the same Debian base as NAP's image. Compose and the Helm chart use the
# official image; this one exists only so that the distributed set can run on this machine.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nats-server \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
VOLUME /data
ENTRYPOINT ["/usr/sbin/nats-server"]
CMD ["-js", "-sd", "/data", "-m", "8222"]
