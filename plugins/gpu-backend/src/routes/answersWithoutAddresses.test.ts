import express from 'express';
import request from 'supertest';
import { answersWithoutAddresses } from './answersWithoutAddresses';

describe('answersWithoutAddresses', () => {
  const app = express();
  app.use(answersWithoutAddresses());
  const body = {
    reason: 'connect ECONNREFUSED 127.0.0.1:17802',
    endpoint: 'http://10.0.0.7:8000',
    tiers: ['dedicated'],
  };
  app.get('/answer', (_req, res) => {
    res.json(body);
  });
  app.post('/answer', (_req, res) => {
    res.status(201).json(body);
  });
  app.post('/nothing', (_req, res) => {
    res.json(undefined);
  });

  it('scrubs the messages of GET answers and keeps their ETag', async () => {
    const response = await request(app).get('/answer');
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBeDefined();
    expect(response.body.reason).not.toContain('127.0.0.1');
    expect(response.body.endpoint).toBe('http://10.0.0.7:8000');
  });

  it('writes POST answers scrubbed, as JSON with their length and status, without an ETag', async () => {
    const response = await request(app).post('/answer');
    expect(response.status).toBe(201);
    expect(response.headers.etag).toBeUndefined();
    expect(response.headers['content-type']).toBe(
      'application/json; charset=utf-8',
    );
    expect(Number(response.headers['content-length'])).toBe(
      Buffer.byteLength(response.text),
    );
    expect(response.body).toEqual({
      ...body,
      reason: expect.not.stringContaining('127.0.0.1'),
    });
    expect(response.body.reason).toContain('ECONNREFUSED');
  });

  it('writes an empty body for an undefined POST answer', async () => {
    const response = await request(app).post('/nothing');
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });
});
